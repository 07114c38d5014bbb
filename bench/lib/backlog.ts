/** The index work a server has queued, from its /metrics (`index_tasks_queued`). */
export async function queuedIndexTasks(url: string): Promise<number> {
  const res = await fetch(`${url}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics: ${res.status}`);
  const line = (await res.text()).split("\n").find((l) => l.startsWith("index_tasks_queued "));
  if (!line) throw new Error("/metrics has no index_tasks_queued");
  return Number(line.split(" ")[1]);
}

/**
 * Waits until the server has embedded and indexed everything written (the sentence encoder does so in the
 * background); returns the milliseconds waited.
 */
export async function vectorsLanded(url: string, pollMs = 100): Promise<number> {
  const started = performance.now();
  while ((await queuedIndexTasks(url)) > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
  return performance.now() - started;
}
