import type { Redis, RedisOptions } from "ioredis";
import type { Logger } from "../logger.ts";

/** What a group of Redis clients is for (`use`) and what the service does while Redis is away (`without`). */
export interface RedisPurpose {
  use: string;
  without: string;
}

/**
 * Redis clients (ioredis, loaded only when REDIS_URL is set) for one purpose, whose outages are said once each:
 * when the first of them loses Redis and when the last gets it back, rather than at each attempt to reconnect
 * (every 2 s while it is away) and for each client.
 */
export class RedisClients {
  private readonly away = new Set<Redis>();

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly purpose: RedisPurpose,
  ) {}

  async open(options: RedisOptions): Promise<Redis> {
    const client = new (await import("ioredis")).Redis(this.url, options);
    const { use, without } = this.purpose;
    client.on("error", (error: Error) => {
      if (this.away.size === 0) this.logger.warn({ err: error.message }, `Redis for ${use} is unreachable: ${without}`);
      this.away.add(client);
    });
    client.on("ready", () => {
      if (this.away.delete(client) && this.away.size === 0) this.logger.info(`Redis for ${use} is back`);
    });
    return client;
  }
}

/** Closes `client` at once when it is not connected: QUIT waits for an answer a client away from Redis never gets. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status !== "ready") return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}
