// npm run bench:recall [-- --memories 10000 --threads 100 --queries 300 --concurrency 1,4 --embedder use]
// Recall latency (issue 4): POST /api/v1/memory/recall for each path it can take, on a server in its own
// process with a fresh PGlite directory holding `--memories` memories of one user spread over `--threads`
// threads (a tenth outside any thread; 15% preferences). The paths:
//   profile  questions about the user ("what do I like?"): preferences, ranked by the question's topic if any
//   thread   a query with thread_id: BM25 and vector search within the thread, fused
//   hybrid   a query without thread: BM25 and vector search over every memory, fused
// Prints p50/p95/p99 and requests/s per path and concurrency, and which query_type the server reported.
import { parseArgs } from "node:util";
import { intList, positiveInt } from "./lib/args.ts";
import { BenchClient, progress } from "./lib/client.ts";
import { generateMemories, generateProfileQueries, generateQueries, Rng } from "./lib/corpus.ts";
import { vectorsLanded } from "./lib/backlog.ts";
import { machineLine } from "./lib/machine.ts";
import { startBenchServer } from "./lib/server.ts";
import { measure, summarize, warmUp } from "./lib/stats.ts";
import { LATENCY_HEADER, latencyCells, printTable, type Cell } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "10000" },
    threads: { type: "string", default: "100" },
    queries: { type: "string", default: "300" },
    concurrency: { type: "string", default: "1,4" },
    settle: { type: "string", default: "5" }, // seconds of warm-up before timing
    embedder: { type: "string", default: "use" },
  },
});
const total = positiveInt("memories", values.memories);
const threadCount = positiveInt("threads", values.threads);
const queryCount = positiveInt("queries", values.queries);
const levels = intList("concurrency", values.concurrency);
const settleMs = positiveInt("settle", values.settle) * 1000;
const LIMIT = 10;

interface RecallBody {
  query: string;
  limit: number;
  thread_id?: string;
}
interface RecallReply {
  results: unknown[];
  query_type: string;
}

console.log(
  `bench:recall  ${total.toLocaleString("en-US")} memories of one user over ${threadCount} threads, ${queryCount} queries ` +
    `a path, limit ${LIMIT}, PGlite, EMBEDDER=${values.embedder}, server in a child process, timed once every vector has landed`,
);
console.log(machineLine());

const server = await startBenchServer({ EMBEDDER: values.embedder });
try {
  const client = new BenchClient(server.url, server.key);
  const threads: string[] = [];
  for (let i = 0; i < threadCount; i++) {
    threads.push((await client.json<{ id: string }>("POST", "/api/v1/threads", { title: `bench thread ${i}` })).id);
  }
  const r = new Rng(11);
  const items = generateMemories(total).map((m) => ({
    content: m.content,
    type: m.type,
    tags: m.tags,
    ...(r.chance(0.9) ? { thread_id: r.pick(threads) } : {}),
  }));
  const started = performance.now();
  const load = await client.batchCreate(items, { concurrency: 2, onStored: (n) => progress("loading", n, total, started) });
  console.log(`loaded through POST /api/v1/memory/batch: ${Math.round((load.ids.length * 1000) / load.wallMs)} memories/s`);
  console.log(`every vector landed ${((await vectorsLanded(server.url)) / 1000).toFixed(1)} s later\n`);

  const paths: { name: string; bodies: RecallBody[] }[] = [
    { name: "profile", bodies: generateProfileQueries(queryCount).map((query) => ({ query, limit: LIMIT })) },
    { name: "thread", bodies: generateQueries(queryCount, 5).map((query) => ({ query, limit: LIMIT, thread_id: r.pick(threads) })) },
    { name: "hybrid", bodies: generateQueries(queryCount, 6).map((query) => ({ query, limit: LIMIT })) },
  ];
  const rows: Cell[][] = [];
  for (const { name, bodies } of paths) {
    const recall = (i: number) => client.json<RecallReply>("POST", "/api/v1/memory/recall", bodies[i % bodies.length]);
    await warmUp(settleMs, 50, recall);
    for (const concurrency of levels) {
      const run = await measure(bodies.length, concurrency, recall);
      const seen = new Map<string, number>();
      for (const reply of run.results) seen.set(reply.query_type, (seen.get(reply.query_type) ?? 0) + 1);
      const types = [...seen].map(([type, n]) => (n === run.results.length ? type : `${type} ${n}`)).join(", ");
      const empty = run.results.filter((reply) => reply.results.length === 0).length;
      rows.push([name, String(concurrency), ...latencyCells(summarize(run.ms, run.wallMs)), types, String(empty)]);
    }
  }
  printTable(["path", "concurrency", ...LATENCY_HEADER, "query_type returned", "empty"], rows);
} finally {
  await server.stop();
}
