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

// /readyz said "ready" while a full disk failed every write (outside probe)
describe("readiness of an embedded database whose disk is almost full", () => {
  it("answers 200 degraded, naming the disk, and ready once space is freed", async () => {
    let free = 10 * 1024 * 1024;
    const services = {
      db: { sql: { query: async () => [] } },
      index: { kind: "fake", ping: async () => {} },
      embedder: {},
      events: {},
      disk: { free: () => free },
    } as unknown as Services;
    const low = await readiness(services, 300, createLogger("silent"));
    expect(low.status).toBe(200);
    expect(JSON.parse(low.body)).toMatchObject({ status: "degraded", checks: { disk: { ok: false, error: "almost full: 10 MB free" } } });
    free = 1024 * 1024 * 1024;
    expect(JSON.parse((await readiness(services, 300, createLogger("silent"))).body)).toMatchObject({ status: "ready", checks: { disk: { ok: true } } });
  });
});
