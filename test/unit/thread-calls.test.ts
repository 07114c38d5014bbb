import { EventEmitter } from "node:events";
import { setFlagsFromString } from "node:v8";
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { startModuleThread, THREAD_YOUNG_GENERATION_MB } from "../../src/threads/module-thread.ts";
import { messageOnly, ThreadCaller } from "../../src/threads/thread-calls.ts";
import type { TestCalls } from "../support/calls-thread.ts";

class TestThread extends ThreadCaller<TestCalls, { message: string }> {
  close(): Promise<void> {
    return this.closeWith("close", {});
  }
}

// A thread that answers calls collects its garbage once idle after them, where the process exposes V8's gc (as
// main.ts does): the buffers its calls left go back to its allocator, for the heap trimmer to hand back.
describe("a thread answering calls", () => {
  it("is closed, not failed, when its answer to the closing call comes together with its exit", async () => {
    // Node.js reads a stopped thread's last messages just before it emits 'exit', in the same turn of the event
    // loop, which a loaded machine makes the common case: a stand-in worker answers and exits so
    const worker = new EventEmitter() as EventEmitter & Pick<Worker, "postMessage" | "ref" | "unref">;
    worker.ref = worker.unref = () => {};
    worker.postMessage = ({ id }: { id: number }) => {
      setTimeout(() => {
        worker.emit("message", { id, value: undefined });
        worker.emit("exit", 0);
      });
    };
    const failures: Error[] = [];
    const thread = new TestThread(worker as unknown as Worker, { holds: "the test thread", errors: messageOnly, failed: (reason) => failures.push(reason) });
    await thread.close();
    expect(failures).toEqual([]);
    expect(thread.unavailable?.message).toBe("the test thread is closed");
  });

  it("collects what its calls left once it has been idle a few seconds", async () => {
    setFlagsFromString("--expose-gc"); // for threads started from now on, as main.ts sets it
    const thread = new TestThread(
      startModuleThread(import.meta.url, { source: "../support/calls-thread.ts", bundled: "../support/calls-thread.ts" }, {}),
      { holds: "the test thread", errors: messageOnly },
    );
    try {
      await thread.call("leave", {});
      expect(await thread.call("collected", {})).toBe(false);
      // idle for 3 s, noticed within 3 s more; asking is a call too (it would put the collection off): asked once
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      expect(await thread.call("collected", {})).toBe(true);
    } finally {
      await thread.close();
    }
  }, 30_000);

  it("runs with its young generation capped, which V8 would otherwise grow under a load and keep", async () => {
    const worker = startModuleThread(import.meta.url, { source: "../support/calls-thread.ts", bundled: "../support/calls-thread.ts" }, {});
    const thread = new TestThread(worker, { holds: "the test thread", errors: messageOnly });
    try {
      await thread.call("leave", {});
      expect(worker.resourceLimits?.maxYoungGenerationSizeMb).toBe(THREAD_YOUNG_GENERATION_MB);
    } finally {
      await thread.close();
    }
  });
});
