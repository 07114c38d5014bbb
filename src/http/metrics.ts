import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { bearerToken } from "../auth/credentials.ts";
import type { Instrumentation } from "../domain/services.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { AppError } from "../errors.ts";
import type { VectorIndex } from "../vectors/vector-index.ts";
import type { Reply } from "../transport/reply.ts";

/** Anything else is counted as "other": a label value per made-up method would grow without end. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/**
 * Operation names come from clients; past this many distinct ones, new names are counted as "other", so that
 * a client inventing names cannot grow the exposition (and the server's memory) without end.
 */
const MAX_OPERATION_NAMES = 200;
/** A name is a label only up to 64 characters (GraphQL sets no limit); longer ones count as "other". */
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;
/** From a cached lookup (1 ms) to a slow remote embedder (10 s). */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processRegistry: Registry | undefined;

/**
 * CPU, memory, event loop and GC figures belong to the process, however many apps it runs (tests run dozens),
 * and their collectors cannot be stopped once started: one registry for them per process.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** One app's metrics, in a registry of its own, exposed at /metrics in Prometheus' text format. */
export class Metrics implements Instrumentation {
  private readonly registry = new Registry();
  private readonly operationNames = new Set<string>();

  private readonly requests = this.counter(
    "http_requests_total",
    'HTTP requests answered, by method, route pattern ("unmatched": no route; "preflight": CORS) and status',
    ["method", "route", "status"],
  );
  private readonly requestSeconds = this.timer(
    "http_request_duration_seconds",
    "Time from a request's arrival to the end of its response, by method and route pattern",
    ["method", "route"],
  );
  private readonly operations = this.counter(
    "graphql_operations_total",
    "GraphQL operations executed, by operation name and type",
    ["operation", "type"],
  );
  private readonly operationSeconds = this.timer(
    "graphql_operation_duration_seconds",
    "Execution time of GraphQL operations (after parsing and validation), by operation name and type",
    ["operation", "type"],
  );
  private readonly embedSeconds = this.timer(
    "embedder_duration_seconds",
    "Time to embed one batch of texts, by embedder and outcome",
    ["embedder", "outcome"],
  );
  private readonly indexSeconds = this.timer(
    "vector_index_operation_duration_seconds",
    "Time of vector index searches, scores, upserts and deletes, by index, operation and outcome",
    ["index", "operation", "outcome"],
  );
  private readonly rateLimitRejections = this.counter(
    "rate_limit_rejections_total",
    "Requests refused with 429 because their API key was over its rate limit",
    [],
  );

  constructor(
    /** METRICS_TOKEN: when set, a scrape must present it as a Bearer token. */
    private readonly token: string | undefined,
  ) {}

  private counter<Label extends string>(name: string, help: string, labelNames: readonly Label[]): Counter<Label> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** Durations in seconds, over the same BUCKETS for every one. */
  private timer<Label extends string>(name: string, help: string, labelNames: readonly Label[]): Histogram<Label> {
    return new Histogram({ name, help, labelNames, buckets: BUCKETS, registers: [this.registry] });
  }

  /** Exposes the index work still queued (memories waiting for their vector, among others), read at each scrape. */
  watchIndexBacklog(count: () => Promise<number>): void {
    this.gauge(
      "index_tasks_queued",
      "Vector-index tasks queued: writes whose vector has not landed in the index yet (embedding in the background, or retried)",
      count,
    );
  }

  /** Exposes how many memories the vector index holds for the embedder in use, read at each scrape. */
  watchIndexSize(count: () => Promise<number>): void {
    this.gauge(
      "vector_index_points",
      "Memories in the vector index under the embedder in use: searchable by meaning (under their vector, or a draft of it while it is being made)",
      count,
    );
  }

  /** Exposes how many event streams (GraphQL subscriptions) are open on this instance, read at each scrape. */
  watchEventStreams(count: () => number): void {
    this.gauge("event_streams_open", "Event streams (GraphQL subscriptions over Server-Sent Events) open on this instance", async () => count());
  }

  private gauge(name: string, help: string, read: () => Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  /** `route` is the pattern that matched (`/api/v1/memories/:id`), never the raw path. */
  observeRequest(method: string | undefined, route: string, status: number, seconds: number): void {
    const known = method !== undefined && METHODS.has(method) ? method : "other";
    this.requests.inc({ method: known, route, status: String(status) });
    this.requestSeconds.observe({ method: known, route }, seconds);
  }

  observeOperation(name: string, type: string, seconds: number): void {
    // GraphQL puts no limit on a name's length: a client could otherwise make every scrape megabytes long
    const labelled = OPERATION_NAME.test(name);
    if (labelled && this.operationNames.size < MAX_OPERATION_NAMES) this.operationNames.add(name);
    const labels = { operation: this.operationNames.has(name) ? name : "other", type };
    this.operations.inc(labels);
    this.operationSeconds.observe(labels, seconds);
  }

  rateLimited(): void {
    this.rateLimitRejections.inc();
  }

  embedder(embedder: Embedder): Embedder {
    const labels = { embedder: embedder.id };
    return {
      id: embedder.id,
      dimensions: embedder.dimensions,
      deferWrites: embedder.deferWrites,
      embed: (texts, priority) => time(this.embedSeconds, labels, () => embedder.embed(texts, priority)),
      ...(embedder.ready ? { ready: () => embedder.ready!() } : {}),
      ...(embedder.draft ? { draft: (text: string) => embedder.draft!(text) } : {}),
      close: () => embedder.close?.() ?? Promise.resolve(),
    };
  }

  index(index: VectorIndex): VectorIndex {
    const timed = <T>(operation: string, work: () => Promise<T>) =>
      time(this.indexSeconds, { index: index.kind, operation }, work);
    // the indexer writes empty batches too: timing those would bury the real writes under zeros
    const timedWrite = (operation: string, size: number, work: () => Promise<void>) =>
      size === 0 ? work() : timed(operation, work);
    return {
      kind: index.kind,
      ensure: (embedderId, dimensions) => index.ensure(embedderId, dimensions),
      searchesWhere: (embedderId) => index.searchesWhere(embedderId),
      upsert: (embedderId, points) => timedWrite("upsert", points.length, () => index.upsert(embedderId, points)),
      delete: (embedderId, ids) => timedWrite("delete", ids.length, () => index.delete(embedderId, ids)),
      search: (embedderId, vector, filter, limit) =>
        timed("search", () => index.search(embedderId, vector, filter, limit)),
      ...(index.scores
        ? { scores: (embedderId, userId, vector, ids) => timed("scores", () => index.scores!(embedderId, userId, vector, ids)) }
        : {}),
      clear: (embedderId) => index.clear(embedderId),
      count: (embedderId) => index.count(embedderId),
      ...(index.reconcile ? { reconcile: index.reconcile.bind(index) } : {}),
      ...(index.onEmptied ? { onEmptied: index.onEmptied.bind(index) } : {}),
      ping: () => index.ping(),
      close: () => index.close(),
    };
  }

  /** The /metrics response; without the METRICS_TOKEN (when one is set), 401. */
  async scrape(req: IncomingMessage): Promise<Reply> {
    if (this.token !== undefined && !sameSecret(bearerToken(req.headers), this.token)) {
      throw new AppError("UNAUTHORIZED", "/metrics wants the METRICS_TOKEN as a Bearer token", {
        headers: { "www-authenticate": 'Bearer realm="metrics"' },
      });
    }
    const texts = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    return { status: 200, headers: { "content-type": this.registry.contentType }, body: texts.join("\n") };
  }
}

/** Observes how long `work` took, labelled with whether it failed. */
async function time<T>(histogram: Histogram, labels: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let outcome: "ok" | "error" = "error";
  try {
    const result = await work();
    outcome = "ok";
    return result;
  } finally {
    histogram.observe({ ...labels, outcome }, (performance.now() - started) / 1000);
  }
}

/** Compared in constant time: hashing first makes the lengths equal, which timingSafeEqual requires. */
function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
