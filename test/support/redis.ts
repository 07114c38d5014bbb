import { Redis } from "ioredis";
import { warnUntested } from "./loud.ts";

export const redisUrl = () => process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Whether the machine's Redis answers; when it does not, says so loudly (`tests`, then skipped, named). */
export async function redisAvailable(tests = "THE SHARED RATE-LIMIT TESTS"): Promise<boolean> {
  const redis = new Redis(redisUrl(), { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch (error) {
    warnUntested([
      `Redis is not reachable at ${redisUrl()} (${(error as Error).message}).`,
      `${tests} ARE SKIPPED: REDIS_URL is NOT tested. Start Redis (see README) or set TEST_REDIS_URL.`,
    ]);
    return false;
  } finally {
    redis.disconnect();
  }
}
