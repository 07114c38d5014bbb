import { afterEach, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/events/change-event.ts";
import { ChangeFeed } from "../../src/events/change-feed.ts";
import { createLogger } from "../../src/logger.ts";
import { redisAvailable, redisUrl } from "../support/redis.ts";

const withRedis = await redisAvailable("THE CHANGE-FEED-THROUGH-REDIS TESTS");

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
