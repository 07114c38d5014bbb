import { LOW_DISK_BYTES, type DiskSpace } from "../db/disk-space.ts";
import type { Services } from "../domain/services.ts";
import type { Logger } from "../logger.ts";
import { jsonReply, type Reply } from "../transport/reply.ts";

interface Check {
  ok: boolean;
  ms: number;
  error?: string;
}

class Timeout extends Error {}

/**
 * /readyz: 200 when the database answers a trivial query, the vector index is reachable and the embedder has
 * loaded its model (the sentence encoder loads while the service starts), else 503 naming the failed check. Redis
 * (REDIS_URL) is checked but not required: without it each instance still serves, with its own live events and
 * rate-limit counts, so a 200 says "degraded" rather than taking every instance out of service at once; so does
 * an embedded database's disk that is almost full. Each check
 * has `timeoutMs`, so a dependency that hangs fails the probe instead of hanging it. The answer is public, so it
 * says only which check failed; the cause goes to the log.
 */
export async function readiness(services: Services, timeoutMs: number, logger: Logger): Promise<Reply> {
  const { index, embedder } = services;
  const pingRedis = services.events.pingRedis;
  const [database, vectorIndex, model, redis] = await Promise.all([
    check("database", () => services.db.sql.query("SELECT 1"), timeoutMs, logger),
    check("vectorIndex", () => index.ping(), timeoutMs, logger),
    embedder.ready ? check("embedder", () => embedder.ready!(), timeoutMs, logger) : undefined,
    // Redis' clients say once when it goes and comes back: a probe every few seconds need not say it again
    pingRedis ? check("redis", pingRedis, timeoutMs) : undefined,
  ]);
  const disk = diskCheck(services.disk);
  const ready = database.ok && vectorIndex.ok && (model?.ok ?? true);
  const status = !ready ? "unavailable" : (redis && !redis.ok) || (disk && !disk.ok) ? "degraded" : "ready";
  return jsonReply(ready ? 200 : 503, {
    status,
    checks: {
      database,
      vectorIndex: { ...vectorIndex, kind: index.kind },
      ...(model ? { embedder: model } : {}),
      ...(redis ? { redis } : {}),
      ...(disk ? { disk } : {}),
    },
  });
}

/**
 * The embedded database's disk: almost full, writes fail (503) while reads go on, so the instance stays in service
 * ("degraded") rather than leaving its reads without a server. /readyz said "ready" while every write failed
 * (outside probe).
 */
function diskCheck(disk: DiskSpace | undefined): Check | undefined {
  const freeBytes = disk?.free();
  if (freeBytes === undefined) return undefined;
  return freeBytes >= LOW_DISK_BYTES ? { ok: true, ms: 0 } : { ok: false, ms: 0, error: `almost full: ${Math.floor(freeBytes / 1024 / 1024)} MB free` };
}

async function check(name: string, probe: () => Promise<unknown>, timeoutMs: number, logger?: Logger): Promise<Check> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Timeout()), timeoutMs);
      }),
    ]);
    return { ok: true, ms: elapsedMs(started) };
  } catch (error) {
    const timedOut = error instanceof Timeout;
    logger?.warn({ check: name, ...(timedOut ? { timeoutMs } : { err: error }) }, "readiness check failed");
    return { ok: false, ms: elapsedMs(started), error: timedOut ? `no answer within ${timeoutMs} ms` : "failed" };
  } finally {
    clearTimeout(timer);
  }
}

const elapsedMs = (started: number) => Math.round((performance.now() - started) * 10) / 10;
