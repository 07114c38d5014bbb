import { Pool, type Dispatcher } from "undici";
import { measure, type Measured } from "./stats.ts";

/** What POST /api/v1/memory/batch answers. */
export interface BatchReply {
  summary: { total: number; successful: number; failed: number };
  results: { success: boolean; id?: string; error?: { code: string; message: string } }[];
}

export interface BatchItem {
  content: string;
  type?: string;
  tags?: string[];
  thread_id?: string;
}

/**
 * A REST client for one API key; a non-2xx answer throws, since a bench that times errors measures nothing.
 * Through undici's `request` on kept-alive connections rather than `fetch`, whose web streams cost the bench 2-3 ms
 * of CPU a call on a small machine, taken from the cores the server runs on (bench/README.md). Like autocannon and
 * wrk, it asks for no compression: a bench times the service, not gzip on both ends of a loopback.
 */
export class BenchClient {
  private readonly pool: Pool;

  constructor(
    readonly url: string,
    private readonly key: string,
  ) {
    this.pool = new Pool(url);
  }

  async json<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await this.pool.request({
      method: method as Dispatcher.HttpMethod,
      path: route,
      headers: { authorization: `Bearer ${this.key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${method} ${route}: ${res.statusCode} ${text}`);
    return JSON.parse(text) as T;
  }

  /**
   * Stores `items` through POST /api/v1/memory/batch, `batchSize` a request, `concurrency` requests at a time;
   * returns the ids in input order and the time of each request.
   */
  async batchCreate(
    items: readonly BatchItem[],
    { batchSize = 100, concurrency = 1, onStored }: { batchSize?: number; concurrency?: number; onStored?: (n: number) => void } = {},
  ): Promise<Measured<string[]> & { ids: string[] }> {
    const batches = Math.ceil(items.length / batchSize);
    let stored = 0;
    const measured = await measure(batches, concurrency, async (b) => {
      const chunk = items.slice(b * batchSize, (b + 1) * batchSize);
      const reply = await this.json<BatchReply>("POST", "/api/v1/memory/batch", { memories: chunk });
      if (reply.summary.failed > 0) {
        const error = reply.results.find((r) => !r.success)?.error;
        throw new Error(`batch ${b}: ${reply.summary.failed} items failed, e.g. ${error?.code} ${error?.message}`);
      }
      onStored?.((stored += chunk.length));
      return reply.results.map((r) => r.id!);
    });
    return { ...measured, ids: measured.results.flat() };
  }
}

/**
 * Progress of a long load on stderr, so that stdout keeps only the figures: redrawn in place on a terminal,
 * every tenth of the way otherwise (a log should not fill with it).
 */
const printedTenths = new Map<string, number>();
export function progress(label: string, done: number, total: number, startedMs: number): void {
  const tty = process.stderr.isTTY;
  const tenth = Math.floor((done * 10) / total);
  if (!tty && (printedTenths.get(label) ?? -1) >= tenth) return;
  printedTenths.set(label, tenth);
  const seconds = (performance.now() - startedMs) / 1000;
  const rate = seconds > 0 ? Math.round(done / seconds) : 0;
  const text = `${label}: ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} (${rate}/s)`;
  process.stderr.write(tty ? `\r${text}   ${done >= total ? "\n" : ""}` : `${text}\n`);
}
