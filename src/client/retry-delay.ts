/**
 * The wait before retry number `retry` (1, 2, 3...): retryDelay · 2^(retry−1), so 1 s, 2 s, 4 s by default,
 * times a jitter factor drawn from [0.8, 1.2). The jitter spreads out clients that failed together (they would
 * otherwise come back in lockstep); ±20% keeps the documented schedule recognisable.
 */
export function backoffMs(retry: number, retryDelay: number): number {
  return Math.round(retryDelay * 2 ** (retry - 1) * (0.8 + 0.4 * Math.random()));
}

/**
 * How long the server asked the client to wait, if it said: `Retry-After` (delta seconds or an HTTP date)
 * first, because it is relative and so immune to clock skew; on a 429 without it, `X-RateLimit-Reset` (Unix
 * seconds, compared with this machine's clock). A time already past counts as no wait.
 */
export function serverWaitMs(status: number, headers: Headers, now = Date.now()): number | undefined {
  const retryAfter = headers.get("retry-after")?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (status !== 429) return undefined;
  const reset = headers.get("x-ratelimit-reset")?.trim();
  if (!reset || !Number.isFinite(Number(reset))) return undefined;
  return Math.max(0, Number(reset) * 1000 - now);
}
