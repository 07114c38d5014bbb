// npm run bench:batch [-- --memories 20000 --concurrency 1,2 --batch-size 100 --warmup 5]
// Write throughput of batch create (issue 4): memories/s through POST /api/v1/memory/batch, 100 memories a
// request, built-in embedder, on a server in its own process with a fresh PGlite directory for each
// concurrency level (so that every level starts from the same empty store). Also the time of each request.
import { parseArgs } from "node:util";
import { machineLine } from "./lib/machine.ts";
import { intList, positiveInt } from "./lib/args.ts";
import { BenchClient, progress } from "./lib/client.ts";
import { generateMemories } from "./lib/corpus.ts";
import { startBenchServer } from "./lib/server.ts";
import { summarize } from "./lib/stats.ts";
import { fixed, LATENCY_HEADER, latencyCells, printTable, verdict, type Cell } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "20000" },
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

const TARGET = 2000;

const corpus = generateMemories(total + warmupBatches * batchSize).map((m) => ({ content: m.content, type: m.type, tags: m.tags }));
const warmupItems = corpus.slice(0, warmupBatches * batchSize);
const timedItems = corpus.slice(warmupBatches * batchSize);

console.log(
  `bench:batch  ${total.toLocaleString("en-US")} memories in batches of ${batchSize} through POST /api/v1/memory/batch, ` +
    `PGlite, built-in embedder, server in a child process (${warmupBatches} warm-up batches not timed)`,
);
console.log(`${machineLine()}\n`);

const rows: Cell[][] = [];
const rates: { concurrency: number; perSecond: number }[] = [];
for (const concurrency of levels) {
  const server = await startBenchServer();
  try {
    const client = new BenchClient(server.url, server.key);
    if (warmupItems.length) await client.batchCreate(warmupItems, { batchSize });
    const started = performance.now();
    const run = await client.batchCreate(timedItems, {
      batchSize,
      concurrency,
      onStored: (n) => progress(`concurrency ${concurrency}`, n, timedItems.length, started),
    });
    const perSecond = (run.ids.length * 1000) / run.wallMs;
    rates.push({ concurrency, perSecond });
    rows.push([String(concurrency), run.ids.length.toLocaleString("en-US"), (run.wallMs / 1000).toFixed(1), perSecond, ...latencyCells(summarize(run.ms, run.wallMs))]);
  } finally {
    await server.stop();
  }
}

printTable(["concurrency", "memories", "seconds", "memories/s", ...LATENCY_HEADER.map((h) => (h === "ops/s" ? "batches/s" : h))], rows);
console.log(`(n, p50..max: one row per ${batchSize}-memory request)\n`);
for (const { concurrency, perSecond } of rates) {
  console.log(verdict(`batch create at concurrency ${concurrency}`, perSecond >= TARGET, `${fixed(perSecond)} memories/s >= ${TARGET.toLocaleString("en-US")}`));
}
