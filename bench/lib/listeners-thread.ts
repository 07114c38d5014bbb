import { once } from "node:events";
import { Worker } from "node:worker_threads";

/** Who listens during a bench:events run: SSE subscribers to `query` and webhook receivers. */
export interface ListenersSpec {
  url: string;
  key: string;
  query: string;
  subscribers: number;
  webhooks: number;
}

export type ListenersReport =
  | { kind: "listening"; receiverUrls: string[] }
  /** `cpuSeconds`: the thread's CPU from listening to done (NaN without /proc). */
  | { kind: "done"; cpuSeconds: number }
  | { kind: "failed"; message: string };

/**
 * A run's SSE subscribers and webhook receivers in a worker thread (listeners-worker.ts), not on the load
 * generator's event loop: there, their work (parsing every event of ten streams, answering every delivery)
 * delays autocannon's next requests, and the throughput measured falls with the bench's own work as well as
 * the server's. They still share the machine's cores with the server.
 */
export class ListenersThread {
  private constructor(
    private readonly worker: Worker,
    /** Where the receivers listen, for the webhooks to register. */
    readonly receiverUrls: string[],
  ) {}

  /** Resolves once every subscriber listens and every receiver is up. */
  static async start(spec: ListenersSpec): Promise<ListenersThread> {
    // a worker thread does not inherit this process' TypeScript loader (--import tsx): it registers tsx itself
    const entry = JSON.stringify(new URL("./listeners-worker.ts", import.meta.url).href);
    const worker = new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${entry}); });`, {
      eval: true,
      workerData: spec,
    });
    const report = await ListenersThread.next(worker);
    if (report.kind !== "listening") throw new Error(report.kind === "failed" ? report.message : "the listeners thread answered out of turn");
    return new ListenersThread(worker, report.receiverUrls);
  }

  /**
   * Waits until each receiver has accepted `accepted` deliveries, then closes them all and ends the thread.
   * Resolves with the CPU seconds the listeners used (NaN without /proc): they share the server's cores.
   */
  async finish(accepted: number): Promise<number> {
    this.worker.postMessage(accepted);
    const report = await ListenersThread.next(this.worker);
    await this.worker.terminate();
    if (report.kind !== "done") throw new Error(report.kind === "failed" ? report.message : "the listeners thread answered out of turn");
    return report.cpuSeconds;
  }

  private static async next(worker: Worker): Promise<ListenersReport> {
    const [report] = (await Promise.race([once(worker, "message"), once(worker, "error").then(([error]) => Promise.reject(error as Error))])) as [ListenersReport];
    return report;
  }
}
