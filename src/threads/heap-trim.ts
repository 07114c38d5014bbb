import { createRequire } from "node:module";
import { runInNewContext } from "node:vm";
import type { Logger } from "../logger.ts";

// how often the process' CPU time is read; a stretch of work is over when a whole interval used less than IDLE of
// a core, after one that used more than BUSY
export const CHECK_EVERY_MS = 5_000;
const BUSY = 0.2;
const IDLE = 0.05;

// mallopt's parameters (malloc.h), and the size each is fixed at: see fixThresholds
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
const THRESHOLD_BYTES = 1024 * 1024;

interface Glibc {
  mallocTrim(pad: number): number;
  mallopt(param: number, value: number): number;
}

/**
 * glibc's allocator functions, or undefined where there is no glibc (musl, macOS, Windows) or it cannot be
 * reached. Node.js cannot call them without a native addon; koffi, an FFI whose package carries prebuilt binaries
 * for every platform, calls them from libc itself.
 */
function glibc(logger: Logger): Glibc | undefined {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  if (!header?.glibcVersionRuntime) return undefined;
  try {
    const libc = (createRequire(import.meta.url)("koffi") as typeof import("koffi")).load("libc.so.6");
    return {
      mallocTrim: libc.func("int malloc_trim(size_t pad)") as Glibc["mallocTrim"],
      mallopt: libc.func("int mallopt(int param, int value)") as Glibc["mallopt"],
    };
  } catch (error) {
    logger.warn({ err: error }, "could not reach malloc_trim: memory freed after a load stays with the process");
    return undefined;
  }
}

/**
 * Fixes the sizes from which glibc maps an allocation on its own (1 MB) and shrinks a heap whose free top has
 * grown past them (1 MB). Left to itself, glibc raises both after each large block it frees: after a load of
 * 40 000 memories they stood at 28 and 56 MB, so buffers up to 28 MB were carved from the threads' heaps, and
 * each thread's heap kept a free top of up to 56 MB, which malloc_trim does not touch outside the main heap:
 * 108 MB of the process' resident memory was such free tops (read with gdb from glibc's arenas).
 */
function fixThresholds(libc: Glibc, logger: Logger): void {
  if (libc.mallopt(M_MMAP_THRESHOLD, THRESHOLD_BYTES) !== 1 || libc.mallopt(M_TRIM_THRESHOLD, THRESHOLD_BYTES) !== 1) {
    logger.warn("glibc refused fixed allocator thresholds: the threads' heaps may keep what a load freed");
  }
}

/**
 * V8's full collection of this thread's heap, where the process exposed it (main.ts sets --expose-gc at run time,
 * which defines `gc` only in contexts made after it, as this one is).
 */
function heapCollector(): (() => void) | undefined {
  const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
  return typeof gc === "function" ? (gc as () => void) : undefined;
}

/**
 * Gives the memory a stretch of work freed back to the system once the work is over. glibc keeps what its
 * threads free in their heaps (the main one and an arena for each thread that allocates: the embedded database's,
 * the vector index's, the encoder's) for their next allocations, and returns a heap's free pages only from its top:
 * after a load of 100 000 memories the process held some 350 MB more than the same service restarted on the same
 * data (bench/README.md, "Memory and disk footprint"), most of it free chunks. malloc_trim(0) hands back every free
 * page of every heap; it takes a few milliseconds, so it runs once after each stretch of work, not during one, and
 * when `started` (the service up, its model loaded) resolves. The event loop's V8 heap is collected first (as the
 * threads that answer calls collect theirs once idle): left to itself, 60 s after a load of 100 000 memories it
 * still held 40-160 MB in three runs of one build, and its garbage kept the buffers it points to; collected, 40 MB
 * in each of four.
 * Process-wide: started by the server's entry point (main.ts), not by each app a test makes.
 */
export function trimHeapsAfterWork(logger: Logger, started: Promise<unknown> = Promise.resolve()): { stop(): void } {
  const libc = glibc(logger);
  if (!libc) return { stop() {} };
  fixThresholds(libc, logger);
  const collect = heapCollector();
  let stopped = false;
  const trimNow = () => {
    const begun = performance.now();
    collect?.();
    const collected = performance.now();
    libc.mallocTrim(0);
    logger.debug(
      { ms: Math.round(performance.now() - begun), ...(collect ? { collectMs: Math.round(collected - begun) } : {}) },
      "gave the memory freed by the last stretch of work back to the system",
    );
  };
  let last = process.cpuUsage();
  let worked = false;
  // start-up is such a stretch (the model's files read and decoded, the database opened and migrated): trimmed at
  // once, and again once idle, when V8 has collected what start-up left
  void started.then(
    () => {
      if (stopped) return;
      trimNow();
      worked = true;
    },
    () => {},
  );
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    const share = (used.user + used.system) / 1000 / CHECK_EVERY_MS;
    if (share > BUSY) worked = true;
    else if (worked && share < IDLE) {
      worked = false;
      trimNow();
    }
  }, CHECK_EVERY_MS).unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
