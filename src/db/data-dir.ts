import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config.ts";
import type { Logger } from "../logger.ts";
import { lockDataDir, type DataDirHolder, type DataDirLock } from "./data-dir-lock.ts";

/** Group and other permission bits: the memories' text is in these files (tables, WAL), so none belongs there. */
const OTHERS = 0o077;

export class DataDirOwnerError extends ConfigError {
  override name = "DataDirOwnerError";
  constructor(dataDir: string, path: string, owner: number, uid: number) {
    super(
      `${path === dataDir ? "The data directory" : `${path} in the data directory`} ${dataDir} belongs to uid ${owner}, ` +
        `not to uid ${uid} that runs the service. Run the service as that user, or set DATA_DIR to a directory of its own.`,
    );
  }
}

/** Errors of a device with no room left for what the data directory needs. */
const NO_SPACE = new Set(["ENOSPC", "EDQUOT"]);

/**
 * `error` as one line naming DATA_DIR when it is the device's lack of space (a start on a full disk printed the
 * file system's error with its stack); any other error as it is.
 */
export function noSpaceInDataDir(dataDir: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined || !NO_SPACE.has(code)) return error;
  return new ConfigError(`DATA_DIR ${dataDir} cannot be used: no space left on its device (${code}); free some space and start again`, { cause: error });
}

/** Refuses what belongs to another user: as root, its owner could no longer use the files created here. */
function assertOwned(dataDir: string, path: string, owner: number, uid: number): void {
  if (owner !== uid) throw new DataDirOwnerError(dataDir, path, owner, uid);
}

/** Takes group and other bits off `path` and everything under it; returns how many entries had any. */
function restrictToOwner(dataDir: string, path: string, uid: number, stats: Stats = lstatSync(path)): number {
  if (stats.isSymbolicLink()) return 0; // chmod would follow it out of the directory
  assertOwned(dataDir, path, stats.uid, uid);
  let repaired = 0;
  if (stats.mode & OTHERS) {
    chmodSync(path, stats.mode & 0o700);
    repaired++;
  }
  if (stats.isDirectory()) for (const name of readdirSync(path)) repaired += restrictToOwner(dataDir, join(path, name), uid);
  return repaired;
}

/** DATA_DIR's status, made if it is not there; a path that cannot be a directory names the setting. */
function usableDir(dataDir: string): Stats {
  const notADirectory = `DATA_DIR ${dataDir} is a file, not a directory`;
  let stats: Stats;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    stats = statSync(dataDir); // DATA_DIR itself may be a symbolic link
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === undefined) throw error;
    throw new ConfigError(code === "EEXIST" ? notADirectory : `DATA_DIR ${dataDir} cannot be used: ${message}`, { cause: error });
  }
  if (!stats.isDirectory()) throw new ConfigError(notADirectory);
  return stats;
}

/**
 * Readies DATA_DIR for this process, the server or a CLI: refuses it when it belongs to another user, makes it
 * and whatever this process creates from now on owner-only, locks it, and repairs what an older version or a
 * copy left open to others. Release the lock when done.
 */
export function openDataDir(dataDir: string, holder: DataDirHolder, logger?: Logger): DataDirLock {
  // what PGlite (see owner-only-node-fs.ts for the modes it sets itself), usearch and the control socket create
  process.umask(0o077);
  const root = usableDir(dataDir);
  // no owners to compare on Windows
  const uid = process.getuid?.();
  if (uid !== undefined) assertOwned(dataDir, dataDir, root.uid, uid);
  let lock: DataDirLock;
  try {
    lock = lockDataDir(dataDir, holder);
  } catch (error) {
    throw noSpaceInDataDir(dataDir, error);
  }
  try {
    const repaired = uid === undefined ? 0 : restrictToOwner(dataDir, dataDir, uid, root);
    if (repaired > 0) logger?.warn({ dataDir, repaired }, "repaired entries of the data directory that other users could access");
    return lock;
  } catch (error) {
    lock.release();
    throw error;
  }
}
