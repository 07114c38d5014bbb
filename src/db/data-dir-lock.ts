import { closeSync, constants, ftruncateSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../logger.ts";
import { processStartTime, stillRunning } from "./process-start.ts";

/**
 * PGlite is one process's database: two processes opening the same directory would corrupt it. Whoever opens
 * it (the server or a CLI run while no server is up) holds an OS lock on memory-service.lock for as long as it
 * runs; the file also names the holder's pid, for the message that refuses the next one.
 *
 * An OS lock is released by the kernel when its process ends, however it ends, so neither a crash nor a crashed
 * server's pid reused by an unrelated process (which is all a pid in a file checked with kill(pid, 0) could see)
 * keeps the directory locked. It comes from fs-native-extensions, whose npm package ships prebuilt N-API
 * binaries (Linux glibc x64/arm64, macOS, Windows) and installs with no build step or download: an
 * open-file-description lock (F_OFD_SETLK) on Linux, flock(2) on macOS, LockFileEx on Windows. Passed over:
 * proper-lockfile (an mtime heartbeat: a crashed holder blocks restarts until a timeout, and a stalled event loop
 * hands the lock to a second server) and fs-ext (no prebuilt binaries: node-gyp at every `npm ci`). Where that
 * binary does not load (musl, other architectures), the recorded pid is believed only while the process with that
 * pid has the start time recorded with it, which is read from /proc (so, without /proc, the pid alone decides).
 */
export class DataDirBusyError extends Error {
  override name = "DataDirBusyError";
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
    /** What holds it, as its lock file says (undefined: a version that did not say, or unreadable). */
    readonly holder?: DataDirHolder,
  ) {
    const who = pid === undefined ? "another process" : `process ${pid}`;
    const what = holder === "command" ? `a command (${who})` : holder === "relay" ? `an MCP relay (${who})` : who;
    super(`The data directory ${dataDir} is in use by ${what}.`);
  }
}

/**
 * Who opens the directory: a server, which answers the CLI through its control socket; an MCP relay that started
 * the service for its desktop client while no server was up (answering alike), which hands the directory over to
 * a server that starts (afterCommands); or a CLI command run while no server was up, for the command's time only.
 */
export type DataDirHolder = "server" | "command" | "relay";

const HOLDERS: readonly string[] = ["server", "command", "relay"] satisfies DataDirHolder[];

export interface DataDirLock {
  release(): void;
}

/** The part of fs-native-extensions used here. */
export interface OsLocks {
  /** An exclusive lock on the whole file; false when another open file holds one. */
  tryLock(fd: number): boolean;
}

let osLocks: OsLocks | null | undefined;

/** fs-native-extensions, or null where its binary does not load. */
export function loadOsLocks(): OsLocks | null {
  if (osLocks === undefined) {
    try {
      osLocks = createRequire(import.meta.url)("fs-native-extensions") as OsLocks;
    } catch {
      osLocks = null;
    }
  }
  return osLocks;
}

interface Holder {
  pid: number;
  started: string | undefined;
  holder: DataDirHolder | undefined;
}

/** "<pid> <start time> <holder>", the start time "-" where there is no /proc. */
const record = (pid: number, holder: DataDirHolder) => `${pid} ${processStartTime(pid) ?? "-"} ${holder}\n`;

function recordedHolder(fd: number): Holder | undefined {
  try {
    const buffer = Buffer.alloc(64);
    const [pid, started, holder] = buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0)).trim().split(/\s+/);
    const parsed = Number(pid);
    if (!Number.isInteger(parsed) || parsed <= 0) return undefined;
    return { pid: parsed, started: started === "-" ? undefined : started, holder: HOLDERS.includes(holder!) ? (holder as DataDirHolder) : undefined };
  } catch {
    return undefined; // Windows' lock keeps others from reading the file
  }
}

/**
 * Without an OS lock: whether the process the file names still holds it. Never this process: its own pid in the
 * file is a previous run's (in a container the server has the same pid at every start).
 */
function heldByAnother(fd: number): boolean {
  const holder = recordedHolder(fd);
  return holder !== undefined && holder.pid !== process.pid && stillRunning(holder.pid, holder.started);
}

/** Whether `pid` runs Node.js, by its command line; believed where /proc cannot tell. */
function runsNode(pid: number): boolean {
  try {
    return basename(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]!).startsWith("node");
  } catch {
    return true;
  }
}

/**
 * A bare pid in the file, as the builds before the OS lock (before 2026-11-24) wrote it: they took no OS lock, so
 * one still running holds the directory though the lock is free, and a second server beside it migrated and
 * corrupted the database (an outside probe lost every memory so). Believed while that pid runs Node.js: a crashed
 * server's pid reused by another program does not keep the directory locked.
 */
function heldByEarlierBuild(fd: number): boolean {
  const holder = recordedHolder(fd);
  return (
    holder !== undefined &&
    holder.started === undefined &&
    holder.holder === undefined &&
    holder.pid !== process.pid &&
    stillRunning(holder.pid, undefined) &&
    runsNode(holder.pid)
  );
}

export function lockDataDir(dataDir: string, holder: DataDirHolder, locks: OsLocks | null = loadOsLocks()): DataDirLock {
  // never unlinked: a process that opened it just before would lock the unlinked file, the next one a new file
  const fd = openSync(join(dataDir, "memory-service.lock"), constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    const taken = locks ? locks.tryLock(fd) && !heldByEarlierBuild(fd) : !heldByAnother(fd);
    if (!taken) {
      const found = recordedHolder(fd);
      throw new DataDirBusyError(dataDir, found?.pid, found?.holder);
    }
    ftruncateSync(fd, 0);
    writeSync(fd, record(process.pid, holder), 0);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  let released = false;
  return {
    release() {
      if (released) return; // the fd's number may belong to another file by now
      released = true;
      try {
        ftruncateSync(fd, 0);
      } finally {
        closeSync(fd); // and with it the lock
      }
    },
  };
}

const RETRY_MS = 100;

/**
 * `attempt()`, tried again every RETRY_MS while it fails with DataDirBusyError for a holder that `waitsFor`
 * (every holder when absent), up to `waitMs`; `onWait` hears of the first such wait, `onBusy` of each.
 */
export async function whileBusy<T>(
  attempt: () => Promise<T>,
  waitMs: number,
  {
    waitsFor = () => true,
    onWait,
    onBusy,
  }: { waitsFor?: (busy: DataDirBusyError) => boolean; onWait?: (busy: DataDirBusyError) => void; onBusy?: (busy: DataDirBusyError) => void } = {},
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let waited = false; ; waited = true) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof DataDirBusyError) || !waitsFor(error) || Date.now() > deadline) throw error;
      if (!waited) onWait?.(error);
      onBusy?.(error);
    }
    await sleep(RETRY_MS);
  }
}

/** How long a starting server waits for a CLI command that holds the directory: a local import of a large file. */
const COMMAND_WAIT_MS = 60_000;

/**
 * `open()`, retried while a CLI command holds the data directory (run while no server was up, it holds it for its
 * own time only), or an MCP relay that `handOver` asks to let it go (each relay once: it then relays to this
 * server), up to COMMAND_WAIT_MS; a directory held by another server is refused at once. A relay held it for as
 * long as its desktop client stayed open, and a server started meanwhile was refused (outside probe).
 */
export const afterCommands = <T>(open: () => Promise<T>, logger?: Logger, handOver?: () => void): Promise<T> => {
  const asked = new Set<number | undefined>();
  return whileBusy(open, COMMAND_WAIT_MS, {
    waitsFor: (busy) => busy.holder === "command" || (busy.holder === "relay" && handOver !== undefined),
    onWait: (busy) => {
      if (busy.holder === "command") logger?.warn({ pid: busy.pid }, "a CLI command holds the data directory; waiting for it to finish");
    },
    onBusy: (busy) => {
      if (busy.holder !== "relay" || asked.has(busy.pid)) return;
      asked.add(busy.pid);
      logger?.info({ pid: busy.pid }, "an MCP relay holds the data directory; asking it to hand it over");
      handOver?.();
    },
  });
};
