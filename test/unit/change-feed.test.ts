import { afterEach, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/events/change-event.ts";
import { ChangeFeed } from "../../src/events/change-feed.ts";
import { createLogger } from "../../src/logger.ts";
import { redisAvailable, redisUrl } from "../support/redis.ts";

const withRedis = await redisAvailable("THE CHANGE-FEED-THROUGH-REDIS TESTS");

const eventOf = (userId: string, type: ChangeEvent["type"], objectId: string): ChangeEvent => ({
  id: `e-${objectId}`,
  type,
  userId,
  objectId,
  threadId: null,
  timestamp: "2026-11-24T12:00:00.000Z",
  data: null,
});

describe("the change feed in process", () => {
  it("gives a subscriber its own user's events that it accepts, in order, and nothing else", async () => {
    const feed = await ChangeFeed.open(undefined, createLogger("silent"));
    const events = feed.subscribe("user-1", (event) => event.type === "memory.deleted")[Symbol.asyncIterator]();
    const next = events.next();
    feed.publish(eventOf("user-1", "memory.created", "m1"));
    feed.publish(eventOf("user-2", "memory.deleted", "m2"));
    feed.publish(eventOf("user-1", "memory.deleted", "m3"));
    feed.publish(eventOf("user-1", "memory.deleted", "m4"));
    expect((await next).value).toEqual(eventOf("user-1", "memory.deleted", "m3"));
    expect((await events.next()).value).toEqual(eventOf("user-1", "memory.deleted", "m4"));
    await events.return?.();
    // returned: its listener is gone, so nothing more is queued for it
    feed.publish(eventOf("user-1", "memory.deleted", "m5"));
    expect(await events.next()).toEqual({ done: true, value: undefined });
    await feed.close();
  });
});

describe.skipIf(!withRedis)("the change feed through Redis", () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  afterEach(() => {
    process.off("unhandledRejection", onRejection);
  });

  it("lets a subscription end after the feed closed without an unhandled rejection", async () => {
    process.on("unhandledRejection", onRejection);
    const feed = await ChangeFeed.open(redisUrl(), createLogger("silent"));
    const events = feed.subscribe("user-1")[Symbol.asyncIterator]();
    const first = events.next(); // starts the subscription: SUBSCRIBE is sent
    await new Promise((resolve) => setTimeout(resolve, 100));
    await feed.close();
    await events.return?.(); // UNSUBSCRIBE on a closed connection
    await first;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(rejections).toEqual([]);
  });

  it("delivers a published event to the user's subscriber", async () => {
    const feed = await ChangeFeed.open(redisUrl(), createLogger("silent"));
    try {
      const events = feed.subscribe("user-2")[Symbol.asyncIterator]();
      const next = events.next();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const event: ChangeEvent = {
        id: "e1",
        type: "memory.deleted",
        userId: "user-2",
        objectId: "m1",
        threadId: null,
        timestamp: new Date().toISOString(),
        data: null,
      };
      feed.publish(event);
      expect((await next).value).toEqual(event);
      await events.return?.();
    } finally {
      await feed.close();
    }
  });
});
