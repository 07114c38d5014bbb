import { ConfigError, type Config } from "../config.ts";
import { NoServerError, ServerLostError } from "../control/client.ts";
import { DataDirBusyError, whileBusy } from "../db/data-dir-lock.ts";
import { MigrationError } from "../db/migrate.ts";
import { AppError } from "../errors.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

/** An argument node's parseArgs refused (an unknown option, a value missing or not wanted, a stray positional). */
const refusedArgument = (error: unknown): error is TypeError =>
  error instanceof TypeError && String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_");

/** A failure of a file system call on a path (ENOENT, EACCES, EISDIR...). */
const isFileError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string" && typeof (error as NodeJS.ErrnoException).path === "string";

/** The command line's options before any `--`. */
function options(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end === -1 ? args : args.slice(0, end);
}

/** What a failure says: its code (for --json) and its message; undefined for an unexpected one, printed whole. */
function describeFailure(error: unknown, usage: string): { code: string; message: string; exitCode: number; usage?: string } | undefined {
  if (error instanceof UsageError || refusedArgument(error)) return { code: "USAGE", message: error.message, exitCode: 2, usage };
  if (error instanceof AppError) return { code: error.code, message: error.message, exitCode: 1 };
  if (error instanceof ConfigError) return { code: "CONFIG", message: error.message, exitCode: 1 };
  if (error instanceof MigrationError) return { code: "MIGRATION", message: error.message, exitCode: 1 };
  if (error instanceof ServerLostError) {
    const message = `The server holding DATA_DIR stopped answering before the command finished (${error.message}): what it did until then stays done; run the command again (an import skips what it stored).`;
    return { code: "SERVER_LOST", message, exitCode: 1 };
  }
  // a file given on the command line that cannot be read or written: node's one line says which and why
  if (isFileError(error)) return { code: "FILE", message: error.message, exitCode: 1 };
  if (error instanceof DataDirBusyError) {
    const waited = `${HOLDER_WAIT_MS / 1000} s`;
    const advice =
      error.holder === "command" ? `It was still at work after ${waited}: run this once it has finished.` : `It did not answer on its control socket within ${waited}; stop it first.`;
    const message = `${error.message} ${advice}`;
    return { code: "DATA_DIR_BUSY", message, exitCode: 1 };
  }
  return undefined;
}

/**
 * Runs a CLI command: its result on stdout (and nothing else there, so `--json` output can be piped), every
 * message on stderr (with `--json`, a failure as one JSON line, `{"error":{"code","message"}}`), exit 1 on
 * failure and 2 on a usage error (an argument the command does not take among them). `--help` (or `-h`) prints
 * the usage on stdout and runs nothing.
 */
export async function runCli(usage: string, command: (print: (text: string) => void) => Promise<void>): Promise<void> {
  const given = options(process.argv.slice(2));
  if (given.some((arg) => arg === "--help" || arg === "-h")) {
    process.stdout.write(`${usage}\n`);
    process.exitCode = 0;
    return;
  }
  try {
    await command((text) => process.stdout.write(`${text}\n`));
    process.exitCode = 0;
  } catch (error) {
    const failure = describeFailure(error, usage);
    process.exitCode = failure?.exitCode ?? 1;
    if (given.includes("--json")) {
      const { code, message } = failure ?? { code: "INTERNAL", message: error instanceof Error ? error.message : String(error) };
      console.error(JSON.stringify({ error: { code, message } }));
    } else if (failure) {
      console.error(failure.usage ? `${failure.message}\n\n${failure.usage}` : failure.message);
    } else {
      console.error(error);
    }
  }
}

/** How long a command waits for a process that holds the embedded database without answering yet: a server's start on a large database, or another command. */
export const HOLDER_WAIT_MS = 30_000;

/**
 * `remote()` when the database is the embedded one and a server holds it (PGlite admits one process: the CLI then
 * asks that server, through its control socket); otherwise, or when no server answers, `local()` on the database.
 */
export async function viaServerOr<T>(config: Config, remote: () => Promise<T>, local: () => Promise<T>): Promise<T> {
  if (config.databaseUrl) return local();
  if (config.dataDir.startsWith("memory://")) throw new UsageError("DATA_DIR=memory:// keeps nothing between runs.");
  return viaHolderOr(remote, local);
}

/**
 * `remote()` through the control socket of the process that holds the data directory or, when none answers,
 * `local()` on it. A process that holds it without answering yet (a server starting, another command at work) is
 * waited for, up to HOLDER_WAIT_MS.
 */
export const viaHolderOr = <T>(remote: () => Promise<T>, local: () => Promise<T>): Promise<T> =>
  whileBusy(
    () =>
      remote().catch((error: unknown) => {
        if (!(error instanceof NoServerError)) throw error;
        return local();
      }),
    HOLDER_WAIT_MS,
  );
