/**
 * `work`, or a rejection once it has taken `ms`: a request waits that long for the embedder at most (a create's
 * vector, a search's query), however long the embedder's own timeouts and retries let it take. The work goes on;
 * its result is then unused (a create's memory is embedded again in the background).
 */
export function waitAtMost<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the embedder did not answer within ${ms} ms (EMBEDDER_WAIT_MS)`)), ms);
    timer.unref();
  });
  work.catch(() => {}); // settled after the wait: nobody awaits it any more
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
