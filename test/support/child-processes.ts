import {
  runScript,
  scriptFile,
  startServerProcess,
  type CliResult,
  type ServerEntry,
  type ServerProcess,
} from "../../scripts/lib/server-process.ts";

export type { CliResult, ServerProcess };

/**
 * Node's flags for the processes the tests start (servers, the command-line tools, `npm run mcp`). V8 compiles
 * their WebAssembly (PGlite's PostgreSQL, Prisma's query compiler) twice: at once by Liftoff, and again in the
 * background by TurboFan, for speed over a long run. A test's child lives seconds and does little: TurboFan's
 * pass was about 1 of the 2.9 CPU-seconds of a keys CLI call on PGlite, and with `--liftoff-only` the children of
 * export-cli, keys-cli and crash took 42 CPU-seconds against 72. The code run is the same; only its machine code
 * is slower. Benches do not use this: they start the service as `npm start` does.
 */
export const TEST_NODE_ARGS = ["--liftoff-only"];

/** `npm run <script> -- <args>`'s command, run as the tests run their children, with `input` on its stdin. */
export const runCli = (script: string, args: string[], env: Record<string, string>, input?: string): Promise<CliResult> =>
  runScript(script, args, env, TEST_NODE_ARGS, input);

/** The server in a child process (`npm start`'s command by default), run as the tests run their children. */
export const serverProcess = (env: Record<string, string>, entry: ServerEntry = "built"): Promise<ServerProcess> =>
  startServerProcess(env, entry, { nodeArgs: TEST_NODE_ARGS });

/** The command and arguments of `npm run <script> -- <args>`, run as the tests run their children. */
export const scriptCommand = (script: string, args: string[]): { command: string; args: string[] } => ({
  command: process.execPath,
  args: [...TEST_NODE_ARGS, scriptFile(script), ...args],
});
