import type { Redis, RedisOptions } from "ioredis";
import type { Logger } from "../logger.ts";

/**
 * A Redis client (ioredis, loaded only when REDIS_URL is set) that says once that Redis is unreachable, and once
 * that it is back, rather than at each attempt to reconnect (every 2 s while it is away): `use` names what it is
 * for, `without` what the service does while it is away.
 */
export async function openRedis(url: string, options: RedisOptions, logger: Logger, { use, without }: { use: string; without: string }): Promise<Redis> {
  const client = new (await import("ioredis")).Redis(url, options);
  let away = false;
  client.on("error", (error: Error) => {
    if (!away) logger.warn({ err: error.message }, `Redis for ${use} is unreachable: ${without}`);
    away = true;
  });
  client.on("ready", () => {
    if (away) logger.info(`Redis for ${use} is back`);
    away = false;
  });
  return client;
}

/** Closes `client` at once when it is not connected: QUIT waits for an answer a client away from Redis never gets. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status !== "ready") return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}
