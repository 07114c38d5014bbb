import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { once } from "node:events";
import { dirname, join, relative, sep } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { STARTING_STATUS } from "../../src/http/starting-server.ts";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * This process' environment without the service's settings: a child started with it reads only those it is given.
 * Nor NODE_ENV, which vitest sets to `test`: libraries behave otherwise under it (an SSE stream's end on a drain
 * did), and the children are to run as an operator runs them.
 */
export const baseEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const name of ["DATABASE_URL", "DATA_DIR", "PORT", "HOST", "QDRANT_URL", "OPENAI_API_KEY", "REDIS_URL", "MEMORY_API_KEY", "NODE_ENV"]) {
    delete env[name];
  }
  return env;
};

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The file `npm run <script>` runs: the service's command-line scripts are each `node <file>`
 * (test/unit/cli-scripts.test.ts holds them to it), so a caller can run that command itself.
 */
export function scriptFile(script: string): string {
  const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const file = /^node (\S+)$/.exec(scripts[script] ?? "")?.[1];
  if (!file) throw new Error(`npm run ${script} is not "node <file>": ${scripts[script]}`);
  return file;
}

/**
 * Runs what `npm run <script> -- <args>` runs, as an operator would, without npm in between (npm itself costs a
 * call about 0.4 s of CPU), with `nodeArgs` as node's flags and `input` on its stdin (then closed).
 */
export async function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  nodeArgs: string[] = [],
  input = "",
): Promise<CliResult> {
  assertBuildCurrent(); // the command-line tools run the build as well
  const child = spawn(process.execPath, [...nodeArgs, scriptFile(script), ...args], { cwd: root, env: { ...baseEnv(), ...env } });
  child.stdin.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  log: string[];
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** How to run the server: its TypeScript sources (`npm run dev`), or the build in dist/server (`npm start`). */
export type ServerEntry = "source" | "built";

const BUILT_SERVER = join(root, "dist", "server", "main.mjs");

/** The newest modification time of the files under `dir`. */
export function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    // what a build writes there is not a source (src/client/dist: the client's own build, which a test packs)
    if (entry.isFile() && !relative(dir, entry.parentPath).split(sep).includes("dist")) {
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

let builtChecked = false;

/** A build older than the sources would test code that is no longer there: refused, with what to run. */
function assertBuildCurrent(): void {
  if (builtChecked) return;
  const built = existsSync(BUILT_SERVER) ? statSync(BUILT_SERVER).mtimeMs : 0;
  if (built < newestMtime(join(root, "src"))) {
    throw new Error("dist/server/main.mjs is older than src/: run `node scripts/bundle-server.mjs` (npm test does)");
  }
  builtChecked = true;
}

const ENTRY_ARGS: Record<ServerEntry, string[]> = {
  source: ["--import", "tsx", "src/main.ts"],
  built: ["dist/server/main.mjs"],
};

/**
 * Whether the service behind `url` is up: /readyz answered by the service itself, ready or naming what is not (a
 * model still loading), rather than by the server that listens while the service starts (`starting-server.ts`).
 */
async function serviceUp(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`);
    const { status } = (await res.json()) as { status?: string };
    return status !== STARTING_STATUS;
  } catch {
    return false;
  }
}

/** For looking inside a bench's server: flags for its node (`--cpu-prof`, `--trace-gc`), a file its log goes to. */
export interface Inspection {
  nodeArgs?: string[];
  logFile?: string;
}

/** The server in a child process on a free port; resolves once the service is up (`serviceUp`). */
export async function startServerProcess(
  env: Record<string, string>,
  entry: ServerEntry = "built",
  { nodeArgs = [], logFile }: Inspection = {},
): Promise<ServerProcess> {
  if (entry === "built") assertBuildCurrent();
  const port = await freePort();
  // what `npm run dev` / `npm start` run, without npm in between, so that a signal reaches the server itself
  const child = spawn(process.execPath, [...nodeArgs, ...ENTRY_ARGS[entry]], {
    cwd: root,
    env: { ...baseEnv(), HOST: "127.0.0.1", LOG_LEVEL: "info", ...env, PORT: String(port) },
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const log: string[] = [];
  let gone = false;
  void exited.then(() => (gone = true));
  const keep = (line: string) => {
    log.push(line);
    if (logFile) appendFileSync(logFile, `${line}\n`);
  };
  createInterface({ input: child.stdout! }).on("line", keep);
  createInterface({ input: child.stderr! }).on("line", keep);
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (gone) throw new Error(`server exited before it was ready:\n${log.join("\n")}`);
    if (attempt > 600) throw new Error(`server not ready after 60 s:\n${log.join("\n")}`);
    if (await serviceUp(url)) return { url, child, exited, log };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
