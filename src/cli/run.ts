import { ConfigError, type Config } from "../config.ts";
import { NoServerError } from "../control/client.ts";
import { DataDirBusyError } from "../db/data-dir-lock.ts";
import { MigrationError } from "../db/migrate.ts";
import { AppError } from "../errors.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Runs a CLI command: its result on stdout (and nothing else there, so `--json` output can be piped), every
 * message on stderr, exit 1 on failure and 2 on a usage error.
 */
export async function runCli(usage: string, command: (print: (text: string) => void) => Promise<void>): Promise<void> {
  try {
    await command((text) => process.stdout.write(`${text}\n`));
    process.exitCode = 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`);
      process.exitCode = 2;
    } else if (error instanceof AppError || error instanceof ConfigError || error instanceof MigrationError) {
      console.error(error.message);
      process.exitCode = 1;
    } else if (error instanceof DataDirBusyError) {
      console.error(`${error.message} A server holds it but does not answer on its control socket; stop it first.`);
      process.exitCode = 1;
    } else {
      console.error(error);
      process.exitCode = 1;
    }
  }
}

/**
 * `remote()` when the database is the embedded one and a server holds it (PGlite admits one process: the CLI then
 * asks that server, through its control socket); otherwise, or when no server answers, `local()` on the database.
 */
export async function viaServerOr<T>(config: Config, remote: () => Promise<T>, local: () => Promise<T>): Promise<T> {
  if (!config.databaseUrl) {
    if (config.dataDir.startsWith("memory://")) throw new UsageError("DATA_DIR=memory:// keeps nothing between runs.");
    try {
      return await remote();
    } catch (error) {
      if (!(error instanceof NoServerError)) throw error;
    }
  }
  return local();
}
