import { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";

export interface RateLimitState {
  headers: Record<string, string>;
}

/**
 * A fixed window of RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_SECONDS for each API key, so that no key can
 * use up what others get. Counted in this process, or in Redis (REDIS_URL) when several servers must share
 * one count; if Redis stops answering, each server falls back to counting alone rather than refusing work.
 */
export class RateLimit {
  private constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly max: number,
    private readonly redis: Redis | undefined,
    private readonly onRejected: () => void,
  ) {}

  /** `onRejected` hears of every request refused, for the metrics. */
  static create(config: Config, logger: Logger, onRejected: () => void): RateLimit {
    const { max, windowSeconds, redisUrl } = config.rateLimit;
    const memory = new RateLimiterMemory({ points: max, duration: windowSeconds, keyPrefix: "rl" });
    if (!redisUrl) return new RateLimit(memory, max, undefined, onRejected);
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    redis.on("error", (error: Error) => logger.warn({ err: error.message }, "Redis for rate limits is unreachable"));
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      points: max,
      duration: windowSeconds,
      keyPrefix: "memory-service:rl",
      insuranceLimiter: memory,
    });
    return new RateLimit(limiter, max, redis, onRejected);
  }

  /** Counts one request of the key; throws RATE_LIMITED (with Retry-After) past the limit. */
  async consume(keyId: string): Promise<RateLimitState> {
    try {
      return { headers: this.headers(await this.limiter.consume(keyId)) };
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      this.onRejected();
      const retryAfter = Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
      throw new AppError("RATE_LIMITED", `Too many requests: at most ${this.max} per window; retry in ${retryAfter} s`, {
        headers: { ...this.headers(outcome), "retry-after": String(retryAfter) },
      });
    }
  }

  private headers(state: RateLimiterRes): Record<string, string> {
    return {
      "x-ratelimit-limit": String(this.max),
      "x-ratelimit-remaining": String(Math.max(0, state.remainingPoints)),
      "x-ratelimit-reset": String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)),
    };
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }
}
