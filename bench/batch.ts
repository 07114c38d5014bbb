// npm run bench:batch [-- --memories 10000 --concurrency 1,2 --batch-size 100 --warmup 5 --embedder use]
// Write throughput of batch create: memories/s acknowledged through POST /api/v1/memory/batch, 100 memories a
// request, on a server in its own process with a fresh PGlite directory for each concurrency level (so that
// every level starts from the same empty store), and the time of each request. With the sentence encoder (the
// default) vectors are made in the background: the bench prints how many memories a second became searchable by
// meaning (in the vector index, under a draft of their vector at first: the server's vector_index_points), how
// many a second got the encoder's own vector (until no index work is queued), and the latency of GET /healthz
// (asked every 20 ms) from the first write until the last vector landed, which shows whether inference holds up
// the event loop.
import { parseArgs } from "node:util";
import { machineLine } from "./lib/machine.ts";
import { intList, positiveInt } from "./lib/args.ts";
import { BenchClient, progress } from "./lib/client.ts";
import { generateMemories } from "./lib/corpus.ts";
import { startBenchServer } from "./lib/server.ts";
import { indexHolds, vectorsLanded } from "./lib/backlog.ts";
import { summarize, type LatencySummary } from "./lib/stats.ts";
import { fixed, LATENCY_HEADER, latencyCells, printTable, verdict, type Cell } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "10000" },
    embedder: { type: "string", default: "use" },
    concurrency: { type: "string", default: "1,2" },
    "batch-size": { type: "string", default: "100" },
    warmup: { type: "string", default: "5" }, // batches stored before timing, for the JIT
  },
});
const total = positiveInt("memories", values.memories);
const levels = intList("concurrency", values.concurrency);
const batchSize = positiveInt("batch-size", values["batch-size"]);
const warmupBatches = Number(values.warmup);
if (!Number.isInteger(warmupBatches) || warmupBatches < 0) throw new Error("--warmup must be a whole number");

const embedder = values.embedder;
const TARGET = 2000;
const SEMANTIC_TARGET = 300;
const HEALTHZ_P99_TARGET_MS = 50;
const HEALTHZ_EVERY_MS = 20;

/** GET /healthz every HEALTHZ_EVERY_MS until stopped; the latency of each. */
function probeHealth(url: string): { stop(): Promise<number[]> } {
  const ms: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      ms.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, HEALTHZ_EVERY_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return ms;
    },
  };
}

const corpus = generateMemories(total + warmupBatches * batchSize).map((m) => ({ content: m.content, type: m.type, tags: m.tags }));
const warmupItems = corpus.slice(0, warmupBatches * batchSize);
const timedItems = corpus.slice(warmupBatches * batchSize);

console.log(
  `bench:batch  ${total.toLocaleString("en-US")} memories in batches of ${batchSize} through POST /api/v1/memory/batch, ` +
    `PGlite, EMBEDDER=${embedder}, server in a child process (${warmupBatches} warm-up batches not timed)`,
);
console.log(`${machineLine()}\n`);

const rows: Cell[][] = [];
const rates: { concurrency: number; perSecond: number; searchablePerSecond: number; embeddedPerSecond: number; healthz: LatencySummary }[] = [];
for (const concurrency of levels) {
  const server = await startBenchServer({ EMBEDDER: embedder });
  try {
    const client = new BenchClient(server.url, server.key);
    if (warmupItems.length) await client.batchCreate(warmupItems, { batchSize });
    await vectorsLanded(server.url);
    const health = probeHealth(server.url);
    const started = performance.now();
    const run = await client.batchCreate(timedItems, {
      batchSize,
      concurrency,
      onStored: (n) => progress(`concurrency ${concurrency}`, n, timedItems.length, started),
    });
    const perSecond = (run.ids.length * 1000) / run.wallMs;
    await indexHolds(server.url, warmupItems.length + run.ids.length);
    const searchablePerSecond = (run.ids.length * 1000) / (performance.now() - started);
    await vectorsLanded(server.url);
    const embeddedPerSecond = (run.ids.length * 1000) / (performance.now() - started);
    const healthz = summarize(await health.stop(), 0);
    rates.push({ concurrency, perSecond, searchablePerSecond, embeddedPerSecond, healthz });
    rows.push([String(concurrency), run.ids.length.toLocaleString("en-US"), (run.wallMs / 1000).toFixed(1), perSecond, ...latencyCells(summarize(run.ms, run.wallMs))]);
  } finally {
    await server.stop();
  }
}

printTable(["concurrency", "memories", "seconds", "memories/s", ...LATENCY_HEADER.map((h) => (h === "ops/s" ? "batches/s" : h))], rows);
console.log(`(n, p50..max: one row per ${batchSize}-memory request)\n`);
printTable(
  ["concurrency", "searchable by meaning/s", "encoder's vectors/s", "healthz n", "healthz p50 ms", "healthz p99 ms", "healthz max ms"],
  rates.map((r) => [String(r.concurrency), r.searchablePerSecond, r.embeddedPerSecond, String(r.healthz.count), r.healthz.p50, r.healthz.p99, r.healthz.max]),
);
console.log(
  "(from the first timed write until every memory was in the vector index (searchable), and until the last of the encoder's\n" +
    " vectors replaced its draft; healthz: asked every 20 ms meanwhile)\n",
);
console.log(machineLine());
for (const { concurrency, perSecond, searchablePerSecond, healthz } of rates) {
  console.log(verdict(`batch create at concurrency ${concurrency}`, perSecond >= TARGET, `${fixed(perSecond)} memories/s >= ${TARGET.toLocaleString("en-US")}`));
  console.log(
    verdict(`searchable by meaning at concurrency ${concurrency}`, searchablePerSecond >= SEMANTIC_TARGET, `${fixed(searchablePerSecond)} memories/s >= ${SEMANTIC_TARGET}`),
  );
  console.log(verdict(`/healthz while embedding, concurrency ${concurrency}`, healthz.p99 < HEALTHZ_P99_TARGET_MS, `p99 ${fixed(healthz.p99)} ms < ${HEALTHZ_P99_TARGET_MS} ms`));
}
