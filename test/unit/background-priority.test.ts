import { readlinkSync } from "node:fs";
import { getPriority } from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { BACKGROUND_NICE } from "../../src/threads/background-priority.ts";

const linux = (() => {
  try {
    return readlinkSync("/proc/thread-self").includes("/task/");
  } catch {
    return false;
  }
})();

describe.runIf(linux)("a background thread's priority", () => {
  it("lowers the calling thread's, not the process'", async () => {
    const before = getPriority(process.pid);
    const module = JSON.stringify(new URL("../../src/threads/background-priority.ts", import.meta.url).href);
    // the worker reports its thread id and its priority after lowering it
    const worker = new Worker(
      `import("tsx/esm/api").then(async ({ register }) => {
         register();
         const { lowerThisThreadsPriority } = await import(${module});
         const { getPriority } = await import("node:os");
         const { readlinkSync } = await import("node:fs");
         const { parentPort } = await import("node:worker_threads");
         lowerThisThreadsPriority();
         const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
         parentPort.postMessage({ tid, nice: getPriority(tid) });
       });`,
      { eval: true },
    );
    const { tid, nice } = await new Promise<{ tid: number; nice: number }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(tid).not.toBe(process.pid);
    expect(nice).toBe(BACKGROUND_NICE);
    // the main thread (whose id is the process') keeps the priority it had
    expect(getPriority(process.pid)).toBe(before);
  });
});
