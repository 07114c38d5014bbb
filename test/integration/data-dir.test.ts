import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli, serverProcess, type ServerProcess } from "../support/child-processes.ts";
import { databaseUnderTest, persistentDatabase } from "../support/server.ts";

/** Every entry under `root` (itself included) with its mode; symbolic links are not followed. */
function entries(root: string): { path: string; mode: number; isDirectory: boolean }[] {
  const found: { path: string; mode: number; isDirectory: boolean }[] = [];
  const visit = (path: string) => {
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      return; // a running server removed it meanwhile
    }
    if (stats.isSymbolicLink()) return;
    found.push({ path, mode: stats.mode & 0o777, isDirectory: stats.isDirectory() });
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

/** What group or others may read, write or enter, as "mode path" lines (empty when the tree is private). */
const openToOthers = (root: string) =>
  entries(root)
    .filter((entry) => (entry.mode & 0o077) !== 0)
    .map((entry) => `${entry.mode.toString(8)} ${entry.path}`);

/** `npm start` where it should refuse: its output, or `undefined` (and stopped again) if it started after all. */
async function refusedStart(env: Record<string, string>): Promise<string | undefined> {
  try {
    const server = await serverProcess(env);
    server.child.kill("SIGTERM");
    await server.exited;
    return undefined;
  } catch (error) {
    return String(error);
  }
}

/** Another process that holds the data directory's lock as `holder` for `ms`, then ends; resolved once it holds it. */
async function holdDataDir(dataDir: string, holder: "server" | "command", ms: number): Promise<ChildProcess> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockModule = JSON.stringify(new URL("../../src/db/data-dir-lock.ts", import.meta.url).href);
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e",
      `import { lockDataDir } from ${lockModule};
       lockDataDir(${JSON.stringify(dataDir)}, "${holder}"); console.log("locked"); setTimeout(() => {}, ${ms});`],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  for await (const line of createInterface({ input: child.stdout! })) if (line === "locked") break;
  return child;
}

// The data directory and its lock belong to the embedded database only.
describe.runIf(databaseUnderTest() === "pglite")("the embedded database's data directory", () => {
  let env: Record<string, string>;
  let dataDir: string;
  let cleanup: () => Promise<void>;
  let server: ServerProcess | undefined;
  let unrelated: ChildProcess | undefined;

  beforeAll(async () => {
    const database = await persistentDatabase();
    // a directory the server has to create itself
    dataDir = join(database.env.DATA_DIR!, "data");
    env = { DATA_DIR: dataDir, EMBEDDER: "hash" };
    cleanup = database.drop;
  });
  const stop = async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    server = undefined;
  };
  afterEach(stop);
  afterAll(async () => {
    unrelated?.kill();
    await cleanup?.();
  });

  it("is created owner-only, and stays so with memories (database and vector files) in it", async () => {
    server = await serverProcess(env);
    const created = await runCli("keys", ["create", "--user", "owner@x", "--name", "t", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const res = await fetch(`${server.url}/api/v1/memory`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "the spare key is under the third flowerpot" }),
    });
    expect(res.status).toBe(201);
    expect(openToOthers(dataDir)).toEqual([]);

    await stop(); // writes the vector files and checkpoints
    expect(entries(dataDir).some((entry) => entry.path.includes(`${join(dataDir, "vectors")}/`))).toBe(true);
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it("has entries open to group or others repaired at start, and says how many", async () => {
    const loosened = entries(dataDir);
    for (const entry of loosened) chmodSync(entry.path, entry.isDirectory ? 0o755 : 0o666);
    expect(openToOthers(dataDir)).toHaveLength(loosened.length);

    server = await serverProcess(env);
    const report = server.log.find((line) => line.includes("repaired"));
    expect(report, server.log.join("\n")).toBeDefined();
    expect(JSON.parse(report!)).toMatchObject({ repaired: loosened.length });
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it("refuses a second server while the first runs", async () => {
    server = await serverProcess(env);
    const refusal = await refusedStart(env);
    expect(refusal).toContain(`The data directory ${dataDir} is in use by process ${server.child.pid}.`);
  });

  // a CLI command run while no server was up holds the directory for its own time: a server started meanwhile (as a
  // supervisor restarts one) waited for nothing and exited 1
  it("has a server started while a CLI command holds it wait for the command", async () => {
    const command = await holdDataDir(dataDir, "command", 1_500);
    server = await serverProcess(env);
    const ready = async () => (await fetch(`${server!.url}/readyz`)).status;
    await expect.poll(ready, { timeout: 20_000, interval: 200 }).toBe(200);
    expect(command.exitCode, "the command ended first").not.toBeNull();
    expect(server.log.join("\n")).toContain("a CLI command holds the data directory; waiting for it to finish");
  });

  // a server starting holds the directory before its control socket answers: the keys CLI said "stop it first"
  it("has the keys CLI wait for a process that holds it without answering yet", async () => {
    const starting = await holdDataDir(dataDir, "server", 1_500);
    const keys = await runCli("keys", ["create", "--user", "waits@x", "--name", "t", "--json"], env);
    expect(keys.code, keys.stderr).toBe(0);
    expect(JSON.parse(keys.stdout)).toMatchObject({ name: "t", key: expect.any(String) });
    expect(starting.exitCode, "it waited for the holder to end").not.toBeNull();
  });

  it("starts although its lock file names a live process that reuses a crashed server's pid", async () => {
    unrelated = spawn("sleep", ["600"], { stdio: "ignore" });
    writeFileSync(join(dataDir, "memory-service.lock"), String(unrelated.pid));

    server = await serverProcess(env);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  // chown needs root; the check itself does not
  it.runIf(process.getuid?.() === 0)("refuses a directory that belongs to another user, server and CLI alike", async () => {
    const foreign = join(dataDir, "..", "foreign");
    mkdirSync(foreign, { mode: 0o700 });
    chownSync(foreign, 65534, 65534);
    const foreignEnv = { ...env, DATA_DIR: foreign };

    const refusal = await refusedStart(foreignEnv);
    expect(refusal).toContain(`The data directory ${foreign} belongs to uid 65534`);
    const keys = await runCli("keys", ["list", "--user", "someone@x"], foreignEnv);
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain(`The data directory ${foreign} belongs to uid 65534`);
    expect(readdirSync(foreign)).toEqual([]); // nothing created in it
  });
});
