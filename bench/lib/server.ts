import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runScript, startServerProcess, type Inspection } from "../../scripts/lib/server-process.ts";

export interface BenchServer {
  url: string;
  key: string;
  database: string;
  /** The settings the server runs with, for CLI commands against the same database. */
  env: Record<string, string>;
  /** The PGlite data directory (also when DATABASE_URL is set: it then holds nothing but is still removed). */
  dataDir: string;
  /** The server process', for its CPU time (see cpuSeconds). */
  pid: number;
  /** A key for another user, made through the running server. */
  newKey(user: string): Promise<string>;
  stop(): Promise<void>;
}

export interface BenchServerOptions {
  /**
   * Keep the data directory when the server stops, for a bench that opens the same database again (in its own
   * process, or in a second server); the caller removes it with `removeDataDir`.
   */
  keepData?: boolean;
  /** This PGlite directory instead of a fresh one: kept, since the caller brought it. */
  dataDir?: string;
  /** The user the bench key is made for: the same one again to reach what an earlier run stored in `dataDir`. */
  user?: string;
}

/**
 * To look inside the servers a bench starts (bench/README.md): BENCH_SERVER_NODE_ARGS, node flags split at
 * spaces (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`); BENCH_SERVER_LOG, a file their log lines are appended to
 * (with BENCH_SERVER_LOG_LEVEL, e.g. debug: the embedded database's maintenance and its durations).
 */
function inspection(): Inspection {
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean);
  return { ...(nodeArgs ? { nodeArgs } : {}), ...(process.env.BENCH_SERVER_LOG ? { logFile: process.env.BENCH_SERVER_LOG } : {}) };
}

/** A fresh temporary directory for a bench's database. */
export function newDataDir(): string {
  return mkdtempSync(join(tmpdir(), "memory-bench-"));
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The service as `npm start` runs it (the build), in its own process (so that the load generator does not share its
 * event loop), on a fresh PGlite data directory, or on DATABASE_URL when that is set. `env` adds settings.
 */
export async function startBenchServer(env: Record<string, string> = {}, options: BenchServerOptions = {}): Promise<BenchServer> {
  const dir = options.dataDir ?? newDataDir();
  const keep = options.keepData || options.dataDir !== undefined;
  const database: Record<string, string> = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: dir };
  const settings = { LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? "warn", RATE_LIMIT_MAX: "100000000", ...database, ...env };
  const newKey = async (user: string): Promise<string> => {
    const created = await runScript("keys", ["create", "--user", user, "--name", "bench", "--json"], settings);
    if (created.code !== 0) throw new Error(`could not create a key: ${created.stderr}`);
    return (JSON.parse(created.stdout) as { key: string }).key;
  };
  try {
    const key = await newKey(options.user ?? `bench-${Date.now()}@example.com`);
    const server = await startServerProcess(settings, "built", inspection());
    return {
      url: server.url,
      key,
      newKey,
      database: process.env.DATABASE_URL ? "PostgreSQL" : "PGlite",
      env: settings,
      dataDir: dir,
      pid: server.child.pid!,
      async stop() {
        server.child.kill("SIGTERM");
        await server.exited;
        if (!keep) removeDataDir(dir);
      },
    };
  } catch (error) {
    if (!keep) removeDataDir(dir);
    throw error;
  }
}
