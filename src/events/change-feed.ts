import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { randomUUID } from "node:crypto";
import { Repeater } from "graphql-yoga";
import type { Redis } from "ioredis";
import { closeRedis, RedisClients } from "../db/redis.ts";
import type { Logger } from "../logger.ts";
import type { ChangeEvent } from "./change-event.ts";

// one topic per user (the key of its channel in Redis): a subscriber never receives another user's events
const topicOf = (userId: string) => `memory-service:changes:${userId}`;

/** Where events are dispatched: this process' own, or Redis' (which carries `detail` as JSON). */
type FeedTarget = Pick<EventTarget, "addEventListener" | "removeEventListener" | "dispatchEvent">;

/** An event as it crosses Redis: with the instance that published it, whose own subscribers heard it already. */
interface Shared {
  origin: string;
  event: ChangeEvent;
}

/** Redis' side of the feed: its event target and its two clients (a subscribed connection can do nothing else). */
interface SharedFeed {
  target: FeedTarget;
  publishClient: Redis;
  subscribeClient: Redis;
}

/**
 * The live stream of committed changes, per user. This process' subscribers hear its own events in the process,
 * whether or not Redis answers; with REDIS_URL the events also go through Redis to the other instances, whose
 * subscribers hear them there.
 */
export class ChangeFeed {
  private readonly local = new EventTarget();
  private readonly origin = randomUUID();

  private constructor(private readonly shared: SharedFeed | undefined) {}

  /**
   * The Redis clients are loaded here and connected by `connect()`: a process that neither publishes nor
   * subscribes (the CLI) never connects. Publishing does not queue while Redis is away (the other instances miss
   * those events: they are live only; webhooks go from the outbox); subscribing does, and resubscribes once back.
   */
  static async open(redisUrl: string | undefined, logger: Logger): Promise<ChangeFeed> {
    if (!redisUrl) return new ChangeFeed(undefined);
    const clients = new RedisClients(redisUrl, logger, { use: "live events", without: "other instances' events are not heard; this one's still are" });
    const publishClient = await clients.open({ lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const subscribeClient = await clients.open({ lazyConnect: true, maxRetriesPerRequest: null });
    const target = createRedisEventTarget<CustomEvent>({
      publishClient: caughtCommands(publishClient, logger),
      subscribeClient: caughtCommands(subscribeClient, logger),
    });
    return new ChangeFeed({ target, publishClient, subscribeClient });
  }

  /** Starts connecting to Redis, if the feed uses it, without waiting: the service serves without it. */
  connect(): void {
    for (const client of this.clients()) {
      if (client.status === "wait") client.connect().catch(() => {}); // reconnects on its own; "error" says why
    }
  }

  /** Asks Redis whether it answers, for /readyz; undefined without REDIS_URL. */
  get pingRedis(): (() => Promise<unknown>) | undefined {
    const client = this.shared?.publishClient;
    return client && (() => client.ping());
  }

  publish(event: ChangeEvent): void {
    const topic = topicOf(event.userId);
    this.local.dispatchEvent(new CustomEvent(topic, { detail: event }));
    if (this.shared?.publishClient.status === "ready") {
      this.shared.target.dispatchEvent(new CustomEvent<Shared>(topic, { detail: { origin: this.origin, event } }));
    }
  }

  /**
   * The user's events from now on that `accepts` (all of them when absent), until the iterator is returned.
   * Tested as each is dispatched, before it is queued: an event the subscriber does not want never wakes it.
   */
  subscribe(userId: string, accepts: (event: ChangeEvent) => boolean = () => true): AsyncIterable<ChangeEvent> {
    const { local, shared, origin } = this;
    const topic = topicOf(userId);
    return new Repeater<ChangeEvent>((push, stop) => {
      const take = (event: ChangeEvent) => {
        if (accepts(event)) void push(event);
      };
      const own = (dispatched: Event) => take((dispatched as CustomEvent<ChangeEvent>).detail);
      const others = (dispatched: Event) => {
        const detail = (dispatched as CustomEvent<Shared>).detail;
        if (detail.origin !== origin) take(detail.event);
      };
      local.addEventListener(topic, own);
      shared?.target.addEventListener(topic, others);
      void stop.then(() => {
        local.removeEventListener(topic, own);
        shared?.target.removeEventListener(topic, others);
      });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.clients().map(closeRedis));
  }

  private clients(): Redis[] {
    return this.shared ? [this.shared.publishClient, this.shared.subscribeClient] : [];
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
