/** Latency figures of one measured run. */
export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
  /** Operations per second of wall time: with concurrency above 1 this is more than 1000 / mean. */
  perSecond: number;
}

/** Nearest-rank percentile of an ascending list: the smallest value with at least p% of the list at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(samples: readonly number[], wallMs: number): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, x) => sum + x, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.length ? total / sorted.length : Number.NaN,
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    perSecond: wallMs > 0 ? (sorted.length * 1000) / wallMs : Number.NaN,
  };
}

export interface Measured<T> {
  /** Milliseconds of each call: `ms[i]` is call i's. */
  ms: number[];
  wallMs: number;
  results: T[];
}

/**
 * Calls `run(i)` for i in 0..count-1 with at most `concurrency` calls in flight, timing each. A closed loop:
 * a worker starts its next call when the previous one ends, as a client pool would.
 */
export async function measure<T>(count: number, concurrency: number, run: (i: number) => Promise<T>): Promise<Measured<T>> {
  const ms: number[] = new Array(count);
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const started = performance.now();
      results[i] = await run(i);
      ms[i] = performance.now() - started;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  return { ms, wallMs: performance.now() - started, results };
}

/**
 * Runs `call` over and over for at least `ms` (and `minCalls` times): JIT warm-up, and time for start-up work
 * (reconciliation, the embedded database's autovacuum after a bulk load) to finish before timing starts.
 */
export async function warmUp(ms: number, minCalls: number, call: (i: number) => Promise<unknown>): Promise<void> {
  const started = performance.now();
  for (let i = 0; i < minCalls || performance.now() - started < ms; i++) await call(i);
}
