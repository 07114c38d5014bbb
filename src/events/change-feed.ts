import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { Repeater } from "graphql-yoga";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.ts";
import type { ChangeEvent } from "./change-event.ts";

// one topic per user (the key of its channel in Redis): a subscriber never receives another user's events
const topicOf = (userId: string) => `memory-service:changes:${userId}`;

/** Where events are dispatched: this process' own, or Redis' (which carries `detail` as JSON). */
type FeedTarget = Pick<EventTarget, "addEventListener" | "removeEventListener" | "dispatchEvent">;

/**
 * The live stream of committed changes, per user: in this process, or through Redis (REDIS_URL) so that a
 * subscriber on one instance hears the writes made on another.
 */
export class ChangeFeed {
  private constructor(
    private readonly target: FeedTarget,
    private readonly redis: Redis[],
  ) {}

  /**
   * Two Redis clients (a subscribed connection can do nothing else), loaded and connected only when used: a
   * process that neither publishes nor subscribes (the CLI) never connects.
   */
  static async open(redisUrl: string | undefined, logger: Logger): Promise<ChangeFeed> {
    if (!redisUrl) return new ChangeFeed(new EventTarget(), []);
    const { Redis } = await import("ioredis");
    const [publishClient, subscribeClient] = [new Redis(redisUrl, { lazyConnect: true }), new Redis(redisUrl, { lazyConnect: true })];
    for (const client of [publishClient, subscribeClient]) {
      client.on("error", (error: Error) => logger.warn({ err: error.message }, "Redis for live events is unreachable"));
    }
    const eventTarget = createRedisEventTarget<CustomEvent>({
      publishClient: caughtCommands(publishClient, logger),
      subscribeClient: caughtCommands(subscribeClient, logger),
    });
    return new ChangeFeed(eventTarget, [publishClient, subscribeClient]);
  }

  publish(event: ChangeEvent): void {
    this.target.dispatchEvent(new CustomEvent(topicOf(event.userId), { detail: event }));
  }

  /**
   * The user's events from now on that `accepts` (all of them when absent), until the iterator is returned.
   * Tested as each is dispatched, before it is queued: an event the subscriber does not want never wakes it.
   */
  subscribe(userId: string, accepts: (event: ChangeEvent) => boolean = () => true): AsyncIterable<ChangeEvent> {
    const { target } = this;
    const topic = topicOf(userId);
    return new Repeater<ChangeEvent>((push, stop) => {
      const listener = (dispatched: Event) => {
        const event = (dispatched as CustomEvent<ChangeEvent>).detail;
        if (accepts(event)) void push(event);
      };
      target.addEventListener(topic, listener);
      void stop.then(() => target.removeEventListener(topic, listener));
    });
  }

  async close(): Promise<void> {
    // a client never used has never connected: quitting it would connect it first
    await Promise.all(
      this.redis.map((client) => (client.status === "wait" ? client.disconnect() : client.quit().catch(() => client.disconnect()))),
    );
  }
}

const FIRE_AND_FORGET = new Set<PropertyKey>(["publish", "subscribe", "unsubscribe"]);

/**
 * The event target calls publish, subscribe and unsubscribe without awaiting them; a subscription that ends
 * after the feed closed (an SSE stream outliving shutdown) would reject "Connection is closed" with no handler
 * and take the process down. Each such command's failure is logged here instead.
 */
function caughtCommands(client: Redis, logger: Logger): Redis {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!FIRE_AND_FORGET.has(property) || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (result instanceof Promise) {
          result.catch((error: Error) => logger.warn({ err: error.message, command: String(property) }, "Redis command for live events failed"));
        }
        return result;
      };
    },
  });
}
