import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "../../src/logger.ts";
import { CHECK_EVERY_MS, trimHeapsAfterWork } from "../../src/threads/heap-trim.ts";

const glibc = Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

// The service gives the memory a load freed back to the system once the load is over (src/threads/heap-trim.ts):
// once after each stretch of work, never during one, never while idle throughout.
describe.runIf(glibc)("trimming the allocator's heaps after work", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("trims once when a stretch of work ends, and again only after the next", () => {
    vi.useFakeTimers();
    let cpuMicros = 0;
    vi.spyOn(process, "cpuUsage").mockImplementation((since?: NodeJS.CpuUsage) => ({
      user: cpuMicros - (since?.user ?? 0),
      system: 0,
    }));
    const trims: unknown[] = [];
    const logger = { debug: (fields: unknown) => trims.push(fields), warn: () => {} } as unknown as Logger;
    const trimming = trimHeapsAfterWork(logger, new Promise(() => {}));
    /** An interval of the trimmer's in which the process used `share` of a core. */
    const interval = (share: number) => {
      cpuMicros += share * CHECK_EVERY_MS * 1000;
      vi.advanceTimersByTime(CHECK_EVERY_MS);
    };
    try {
      interval(0.01);
      interval(0.01);
      expect(trims).toHaveLength(0); // idle from the start: nothing was freed
      interval(0.9);
      interval(0.6);
      expect(trims).toHaveLength(0); // not while the work goes on
      interval(0.1);
      expect(trims).toHaveLength(0); // winding down, not idle yet
      interval(0.01);
      expect(trims).toHaveLength(1);
      expect(trims[0]).toMatchObject({ ms: expect.any(Number) as number });
      interval(0.01);
      interval(0.01);
      expect(trims).toHaveLength(1);
      interval(0.5);
      interval(0.02);
      expect(trims).toHaveLength(2);
    } finally {
      trimming.stop();
    }
  });

  it("trims once the service has started and again once idle after, and not when it stopped before that", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    vi.spyOn(process, "cpuUsage").mockImplementation((since?: NodeJS.CpuUsage) => ({ user: 0 - (since?.user ?? 0), system: 0 }));
    const trims: unknown[] = [];
    const logger = { debug: (fields: unknown) => trims.push(fields), warn: () => {} } as unknown as Logger;
    let ready!: () => void;
    const trimming = trimHeapsAfterWork(logger, new Promise<void>((resolve) => (ready = resolve)));
    await Promise.resolve();
    expect(trims).toHaveLength(0);
    ready();
    await new Promise((resolve) => setImmediate(resolve));
    expect(trims).toHaveLength(1);
    vi.advanceTimersByTime(CHECK_EVERY_MS);
    expect(trims).toHaveLength(2);
    vi.advanceTimersByTime(CHECK_EVERY_MS * 3);
    expect(trims).toHaveLength(2);
    trimming.stop();

    let late!: () => void;
    const stoppedFirst = trimHeapsAfterWork(logger, new Promise<void>((resolve) => (late = resolve)));
    stoppedFirst.stop();
    late();
    await new Promise((resolve) => setImmediate(resolve));
    expect(trims).toHaveLength(2);
  });

  it("collects the event loop's heap first, where the process exposed V8's gc as main.ts does", async () => {
    setFlagsFromString("--expose-gc");
    const trims: { collectMs?: number }[] = [];
    const logger = { debug: (fields: { collectMs?: number }) => trims.push(fields), warn: () => {} } as unknown as Logger;
    let garbage: object | undefined = { payload: new Array(1000).fill("x") };
    const collected = new WeakRef(garbage);
    garbage = undefined;
    // a WeakRef's target stays alive until the turn that made it ends
    await new Promise((resolve) => setImmediate(resolve));
    let ready!: () => void;
    const trimming = trimHeapsAfterWork(logger, new Promise<void>((resolve) => (ready = resolve)));
    try {
      expect(collected.deref()).toBeDefined(); // nothing has collected it yet
      await new Promise((resolve) => setImmediate(resolve)); // which deref() kept alive for this turn
      ready();
      await new Promise((resolve) => setImmediate(resolve));
      expect(trims).toHaveLength(1);
      expect(trims[0]!.collectMs).toEqual(expect.any(Number));
      expect(collected.deref()).toBeUndefined();
    } finally {
      trimming.stop();
    }
  });

  it("fixes glibc's thresholds: after a large block is freed, a 2 MB one is still mapped on its own, not carved from a heap", () => {
    const koffi = createRequire(import.meta.url)("koffi") as typeof import("koffi");
    const libc = koffi.load("libc.so.6");
    const malloc = libc.func("void *malloc(size_t size)") as (size: number) => unknown;
    const free = libc.func("void free(void *ptr)") as (pointer: unknown) => void;
    const MallocInfo = koffi.struct("mallinfo2", {
      ...Object.fromEntries(["arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost"].map((field) => [field, "size_t"])),
    });
    const mappedBytes = () => (libc.func("mallinfo2", MallocInfo, [])() as { hblkhd: number }).hblkhd;
    const trimming = trimHeapsAfterWork({ debug: () => {}, warn: () => {} } as unknown as Logger, new Promise(() => {}));
    try {
      free(malloc(16 * 1024 * 1024)); // left to itself, glibc would now carve blocks up to 16 MB from its heaps
      const before = mappedBytes();
      const block = malloc(2 * 1024 * 1024);
      expect(mappedBytes() - before).toBeGreaterThanOrEqual(2 * 1024 * 1024);
      free(block);
    } finally {
      trimming.stop();
    }
  });
});
