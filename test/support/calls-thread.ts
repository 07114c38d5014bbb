// A worker thread for the tests of src/threads/thread-calls.ts: it answers through serveCalls, and says whether what
// one call left behind has been collected since.
import { parentPort } from "node:worker_threads";
import { messageOnly, serveCalls, type Handlers } from "../../src/threads/thread-calls.ts";

export type TestCalls = {
  leave: { args: Record<string, never>; result: void };
  collected: { args: Record<string, never>; result: boolean };
  close: { args: Record<string, never>; result: void };
};

let collected = false;
const registry = new FinalizationRegistry(() => (collected = true));

const handlers: Handlers<TestCalls> = {
  async leave() {
    // a small object nothing refers to once the call has answered: nothing urges V8 to collect it
    registry.register({ left: true }, "left");
  },
  collected: async () => collected,
  async close() {},
};

serveCalls(parentPort!, handlers, messageOnly, "close");
