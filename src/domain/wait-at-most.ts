/**
 * `work`, or a rejection saying `late(ms)` once it has taken `ms`: a request waits that long at most (for the
 * embedder: a create's vector, a search's query; for Redis: a rate limit's count), however long the other side's own
 * timeouts and retries let it take. The work goes on; its result is then unused (a create's memory is embedded again
 * in the background).
 *
 * The time is up only after the event loop's next look at I/O: a loop held by other work past `ms` (a busy
 * instance) ran the timer before reading an answer that had come meanwhile, and timed out a Redis that had answered
 * in time (outside probe, under load).
 */
export function waitAtMost<T>(work: Promise<T>, ms: number, late: (ms: number) => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new Error(late(ms))));
    }, ms);
    timer.unref();
  });
  work.catch(() => {}); // settled after the wait: nobody awaits it any more
  return Promise.race([work, timedOut]).finally(() => {
    clearTimeout(timer);
    clearImmediate(immediate);
  });
}
