import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * PGlite is one process's database: two processes opening the same directory would corrupt it. Whoever opens
 * it (the server or a CLI run while no server is up) holds this lock file; a stale one is taken over.
 */
export class DataDirBusyError extends Error {
  override name = "DataDirBusyError";
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`The data directory ${dataDir} is in use by process ${pid}.`);
  }
}

export interface DataDirLock {
  release(): void;
}

const lockPath = (dataDir: string) => join(dataDir, "memory-service.lock");

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid holding the directory, if a live process does. */
export function dataDirHolder(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath(dataDir), "utf8"), 10);
    return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return {
        release() {
          try {
            if (readFileSync(path, "utf8") === String(process.pid)) unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = dataDirHolder(dataDir);
      if (holder !== undefined) throw new DataDirBusyError(dataDir, holder);
      unlinkSync(path); // stale: its process is gone
    }
  }
  throw new DataDirBusyError(dataDir, Number.NaN);
}
