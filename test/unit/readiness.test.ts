import { afterEach, describe, expect, it, vi } from "vitest";
import type { Services } from "../../src/domain/services.ts";
import { readiness } from "../../src/http/readiness.ts";
import { createLogger } from "../../src/logger.ts";

/** What /readyz reads of the services: a database that answers, and an index whose ping never does. */
const hangingIndex = {
  db: { sql: { query: async () => [] } },
  index: { kind: "fake", ping: () => new Promise<never>(() => {}) },
  embedder: {},
  events: {},
} as unknown as Services;

afterEach(() => {
  vi.useRealTimers();
});

describe("readiness (fake timers)", () => {
  it("gives up on a check that hangs after exactly its timeout, and reports how long it waited", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    let settled = false;
    const probe = readiness(hangingIndex, 300, createLogger("silent")).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(299);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const reply = await probe;
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body).checks.vectorIndex).toEqual({ ok: false, ms: 300, error: "no answer within 300 ms", kind: "fake" });
  });
});
