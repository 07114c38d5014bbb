import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";
import { startModuleThread } from "../../src/threads/module-thread.ts";
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
});
