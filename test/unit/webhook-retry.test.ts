import { describe, expect, it } from "vitest";
import { retryWaitMs } from "../../src/webhooks/delivery-worker.ts";

describe("a webhook delivery's wait before its next attempt", () => {
  it("is the base, then four times longer each time", () => {
    expect([1, 2, 3, 6].map((attempts) => retryWaitMs(30_000, attempts))).toEqual([30_000, 120_000, 480_000, 30_720_000]);
  });

  // with WEBHOOK_MAX_ATTEMPTS=100, 4^n of the base overflowed PostgreSQL's interval: the failure went unrecorded
  it("grows no longer than 7 days, however many attempts", () => {
    expect(retryWaitMs(30_000, 12)).toBe(7 * 24 * 3600_000);
    expect(retryWaitMs(86_400_000, 100)).toBe(7 * 24 * 3600_000);
  });
});
