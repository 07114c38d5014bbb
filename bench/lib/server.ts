import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { npmRun, startServerProcess } from "../../scripts/lib/server-process.ts";

export interface BenchServer {
  url: string;
  key: string;
  database: string;
  /** The settings the server runs with, for CLI commands against the same database. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The service in its own process (so that the load generator does not share its event loop), on a fresh
 * PGlite data directory, or on DATABASE_URL when that is set. `env` adds settings.
 */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), "memory-bench-"));
  const database: Record<string, string> = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: dir };
  const settings = { LOG_LEVEL: "warn", RATE_LIMIT_MAX: "100000000", ...database, ...env };
  const created = await npmRun("keys", ["create", "--user", `bench-${Date.now()}@example.com`, "--name", "bench", "--json"], settings);
  if (created.code !== 0) throw new Error(`could not create a key: ${created.stderr}`);
  const server = await startServerProcess(settings);
  return {
    url: server.url,
    key: (JSON.parse(created.stdout) as { key: string }).key,
    database: process.env.DATABASE_URL ? "PostgreSQL" : "PGlite",
    env: settings,
    async stop() {
      server.child.kill("SIGTERM");
      await server.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
