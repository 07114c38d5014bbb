/** A gauge of a server's /metrics (one without labels). */
async function gauge(url: string, name: string): Promise<number> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics: ${res.status}`);
  const line = (await res.text()).split("\n").find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`/metrics has no ${name}`);
  return Number(line.split(" ")[1]);
}

/** The index work a server has queued (`index_tasks_queued`). */
const queuedIndexTasks = (url: string): Promise<number> => gauge(url, "index_tasks_queued");

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the server has embedded and indexed everything written (the sentence encoder does so in the
 * background); returns the milliseconds waited.
 */
export async function vectorsLanded(url: string, pollMs = 100): Promise<number> {
  const started = performance.now();
  while ((await queuedIndexTasks(url)) > 0) await pause(pollMs);
  return performance.now() - started;
}

/**
 * Waits until the vector index holds at least `count` memories (`vector_index_points`: under their vectors or
 * drafts of them), that is until they are searchable by meaning; returns the milliseconds waited.
 */
export async function indexHolds(url: string, count: number, pollMs = 20): Promise<number> {
  const started = performance.now();
  while ((await gauge(url, "vector_index_points")) < count) await pause(pollMs);
  return performance.now() - started;
}
