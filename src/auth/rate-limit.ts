import type { Redis } from "ioredis";
import { closeRedis, RedisClients } from "../db/redis.ts";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { waitAtMost } from "../domain/wait-at-most.ts";

export interface RateLimitState {
  headers: Record<string, string>;
}

/**
 * How long a Redis count of the rate limits may take before the request is counted in this process instead:
 * a Redis that is connected but does not answer (stopped, swapping) held every authenticated request until it
 * answered again. After such a failure Redis is not asked again for STALLED_MS, by either window.
 */
const REDIS_WAIT_MS = 250;
const STALLED_MS = 5_000;
/** ioredis' own bound on a command, past REDIS_WAIT_MS: what a stalled Redis can hold pending. */
const REDIS_COMMAND_TIMEOUT_MS = 2_000;
/**
 * How long start-up waits for Redis to be ready: a count asked before it was (the client queues nothing) failed,
 * and the instance counted alone for STALLED_MS, giving a key it had just used up elsewhere a fresh budget
 * (outside probe, at every restart under load).
 */
const REDIS_READY_WAIT_MS = 3_000;

/** Whether Redis answers the rate limits' counts, for both windows: a stall found by one spares the other its wait. */
class SharedCounts {
  private stalledUntil = 0;
  private failing = false;

  constructor(private readonly logger: Logger) {}

  get stalled(): boolean {
    return performance.now() < this.stalledUntil;
  }

  answered(): void {
    this.failing = false;
  }

  failed(outcome: unknown): void {
    this.stalledUntil = performance.now() + STALLED_MS;
    // said once an outage, not every STALLED_MS
    if (!this.failing) this.logger.warn({ err: outcome instanceof Error ? outcome.message : String(outcome) }, "Redis for rate limits failed a count: each instance counts alone until it answers");
    this.failing = true;
  }
}

/** One fixed window: `max` points per `windowSeconds` for each key it counts, in Redis when shared. */
class Window {
  constructor(
    private readonly local: RateLimiterMemory,
    private readonly shared: { limiter: RateLimiterRedis; counts: SharedCounts } | undefined,
    readonly max: number,
  ) {}

  /** `use` on the shared count, or on this process' own while Redis fails or has just failed. */
  async count<T>(use: (limiter: RateLimiterAbstract) => Promise<T>): Promise<T> {
    if (!this.shared || this.shared.counts.stalled) return use(this.local);
    const { limiter, counts } = this.shared;
    try {
      const result = await waitAtMost(use(limiter), REDIS_WAIT_MS, (ms) => `Redis did not answer within ${ms} ms`);
      counts.answered();
      return result;
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) {
        counts.answered();
        throw outcome;
      }
      counts.failed(outcome);
      return use(this.local);
    }
  }

  headers(state: RateLimiterRes): Record<string, string> {
    return {
      "x-ratelimit-limit": String(this.max),
      "x-ratelimit-remaining": String(Math.max(0, state.remainingPoints)),
      "x-ratelimit-reset": String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)),
    };
  }

  refusal(state: RateLimiterRes, message: string): AppError {
    const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    return new AppError("RATE_LIMITED", `${message}; retry in ${retryAfter} s`, {
      headers: { ...this.headers(state), "retry-after": String(retryAfter) },
    });
  }
}

/**
 * Two fixed windows, counted in this process, or in Redis (REDIS_URL) when several servers must share one
 * count; if Redis stops answering, each server falls back to counting alone rather than refusing work.
 * - RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_SECONDS for each API key, so that no key can use up what
 *   others get;
 * - AUTH_FAILURE_LIMIT_MAX refused keys per AUTH_FAILURE_WINDOW_SECONDS for each client address, after which
 *   the address is refused (429) until the window ends, without a database lookup: guessing keys, or a
 *   client stuck with a revoked one, costs the service nothing more.
 */
export class RateLimit {
  private constructor(
    private readonly perKey: Window,
    private readonly authFailures: Window,
    private readonly redis: Redis | undefined,
    private readonly onRejected: () => void,
  ) {}

  /** `onRejected` hears of every request refused, for the metrics. The Redis client is loaded only when used. */
  static async create(config: Config, logger: Logger, onRejected: () => void): Promise<RateLimit> {
    const { redisUrl } = config.rateLimit;
    const purpose = { use: "rate limits", without: "each instance counts alone" };
    const redis = redisUrl
      ? await new RedisClients(redisUrl, logger, purpose).open({ enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS })
      : undefined;
    if (redis) await ready(redis, REDIS_READY_WAIT_MS);
    const counts = new SharedCounts(logger);
    const window = (name: string, { max, windowSeconds }: { max: number; windowSeconds: number }) => {
      const local = new RateLimiterMemory({ points: max, duration: windowSeconds, keyPrefix: name });
      const shared = redis && {
        limiter: new RateLimiterRedis({ storeClient: redis, points: max, duration: windowSeconds, keyPrefix: `memory-service:${name}` }),
        counts,
      };
      return new Window(local, shared, max);
    };
    return new RateLimit(window("rl", config.rateLimit), window("auth-fail", config.authFailureLimit), redis, onRejected);
  }

  /** Counts one request of the key (or `points`); throws RATE_LIMITED (with Retry-After) past the limit. */
  async consume(keyId: string, points = 1): Promise<RateLimitState> {
    try {
      return { headers: this.perKey.headers(await this.perKey.count((limiter) => limiter.consume(keyId, points))) };
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      this.onRejected();
      throw this.perKey.refusal(outcome, `Too many requests: at most ${this.perKey.max} per window`);
    }
  }

  /** Throws RATE_LIMITED when the address has had its fill of refused keys in this window. */
  async admitAddress(address: string): Promise<void> {
    const state = await this.authFailures.count((limiter) => limiter.get(address));
    if (state && state.consumedPoints >= this.authFailures.max) {
      this.onRejected();
      throw this.addressRefusal(state);
    }
  }

  /** Counts a refused key from the address. */
  async authenticationFailed(address: string): Promise<void> {
    try {
      await this.authFailures.count((limiter) => limiter.consume(address));
    } catch (outcome) {
      // servers sharing the count raced past the limit: this one is refused like the next
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      this.onRejected();
      throw this.addressRefusal(outcome);
    }
  }

  private addressRefusal(state: RateLimiterRes): AppError {
    return this.authFailures.refusal(state, `Too many requests with a refused API key (or METRICS_TOKEN) from this address: at most ${this.authFailures.max} per window`);
  }

  async close(): Promise<void> {
    if (this.redis) await closeRedis(this.redis);
  }
}

/** Resolves once `client` is ready, or after `ms` (Redis away: the counts go on in this process until it is back). */
async function ready(client: Redis, ms: number): Promise<void> {
  if (client.status === "ready") return;
  let done = () => {};
  const timer = setTimeout(() => done(), ms);
  await new Promise<void>((resolve) => {
    done = resolve;
    client.once("ready", resolve);
  });
  clearTimeout(timer);
  client.off("ready", done);
}
