// npm run bench:mcp [-- --memories 10000 --queries 300 --embedder use]
// MCP against REST for recall (issue 16): the same queries through POST /api/v1/memory/recall and through the MCP
// tool `recall` (the SDK's own client over Streamable HTTP: one POST /mcp a call, answered by a server made for
// that request), on one server in its own process with `--memories` memories of one user. The two run in
// alternating blocks of 25 calls at concurrency 1, so that both see the same machine load; the server's CPU time
// is counted per block. MCP `tools/list` (no service work) shows the protocol's own cost.
// Target: MCP recall p50 at most 1.3 × REST's.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseArgs } from "node:util";
import { positiveInt } from "./lib/args.ts";
import { vectorsLanded } from "./lib/backlog.ts";
import { BenchClient, progress } from "./lib/client.ts";
import { generateMemories, generateQueries } from "./lib/corpus.ts";
import { cpuSeconds } from "./lib/cpu.ts";
import { machineLine } from "./lib/machine.ts";
import { startBenchServer } from "./lib/server.ts";
import { measure, summarize, warmUp } from "./lib/stats.ts";
import { LATENCY_HEADER, fixed, latencyCells, printTable, verdict, type Cell } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "10000" },
    queries: { type: "string", default: "300" },
    embedder: { type: "string", default: "use" },
  },
});
const total = positiveInt("memories", values.memories);
const queryCount = positiveInt("queries", values.queries);
const LIMIT = 10;
// before timing: JIT warm-up, and the start-up work (reconciliation, vacuum after the load) out of the way
const WARM_UP_MS = 5_000;
const BLOCK = 25;
const TARGET = 1.3;

interface RecallReply {
  results: { id: string }[];
}

/** One way of calling, with what its timed calls gave. */
interface Side {
  name: string;
  call(query: string): Promise<unknown>;
  ms: number[];
  wallMs: number;
  cpuSeconds: number;
}

console.log(
  `bench:mcp  recall through REST and through MCP, ${total.toLocaleString("en-US")} memories of one user, ${queryCount} queries, ` +
    `limit ${LIMIT}, PGlite, EMBEDDER=${values.embedder}, server in a child process, concurrency 1 in alternating blocks of ${BLOCK}`,
);
console.log(machineLine());

const server = await startBenchServer({ EMBEDDER: values.embedder });
const mcp = new Client({ name: "bench-mcp", version: "1.0.0" });
try {
  const rest = new BenchClient(server.url, server.key);
  const started = performance.now();
  const onStored = (n: number) => progress("loading", n, total, started);
  const load = await rest.batchCreate(generateMemories(total), { concurrency: 2, onStored });
  console.log(`loaded through POST /api/v1/memory/batch: ${Math.round((load.ids.length * 1000) / load.wallMs)} memories/s`);
  console.log(`every vector landed ${((await vectorsLanded(server.url)) / 1000).toFixed(1)} s later\n`);

  const headers = { authorization: `Bearer ${server.key}` };
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  const recallByMcp = async (query: string): Promise<RecallReply> => {
    const result = await mcp.callTool({ name: "recall", arguments: { query, limit: LIMIT } });
    const [content] = result.content as { text: string }[];
    if (result.isError) throw new Error(`MCP recall failed: ${content?.text}`);
    return JSON.parse(content!.text) as RecallReply;
  };
  const recallByRest = (query: string) => rest.json<RecallReply>("POST", "/api/v1/memory/recall", { query, limit: LIMIT });
  const side = (name: string, call: (query: string) => Promise<unknown>): Side => ({ name, call, ms: [], wallMs: 0, cpuSeconds: 0 });
  const sides = [
    side("REST POST /api/v1/memory/recall", recallByRest),
    side("MCP tools/call recall", recallByMcp),
    side("MCP tools/list", () => mcp.listTools()),
  ];

  const queries = generateQueries(queryCount, 6);
  const sameAnswers = await Promise.all(
    queries.slice(0, 20).map(async (query) => {
      const [byRest, byMcp] = [await recallByRest(query), await recallByMcp(query)];
      return JSON.stringify(byRest) === JSON.stringify(byMcp);
    }),
  );
  for (const each of sides) await warmUp(WARM_UP_MS / sides.length, 50, (i) => each.call(queries[i % queries.length]!));

  for (let block = 0; block * BLOCK < queries.length; block++) {
    // each block in the other order than the last, so that neither side always follows the other
    for (const each of block % 2 ? [...sides].reverse() : sides) {
      const before = cpuSeconds(server.pid) ?? Number.NaN;
      const run = await measure(BLOCK, 1, (i) => each.call(queries[(block * BLOCK + i) % queries.length]!));
      each.cpuSeconds += (cpuSeconds(server.pid) ?? Number.NaN) - before;
      each.ms.push(...run.ms);
      each.wallMs += run.wallMs;
    }
  }

  const rows: Cell[][] = sides.map((each) => [
    each.name,
    ...latencyCells(summarize(each.ms, each.wallMs)),
    (each.cpuSeconds * 1000) / each.ms.length,
  ]);
  printTable(["calls", ...LATENCY_HEADER, "server CPU ms/call"], rows);
  console.log(machineLine());
  const [byRest, byMcp] = sides.map((each) => summarize(each.ms, each.wallMs));
  const ratio = byMcp!.p50 / byRest!.p50;
  const extra = byMcp!.p50 - byRest!.p50;
  console.log(
    `MCP recall: p50 ${fixed(ratio)}× REST's (${extra < 0 ? "-" : "+"}${fixed(Math.abs(extra))} ms), ` +
      `mean ${fixed(byMcp!.mean / byRest!.mean)}×; the same answer as REST for ${sameAnswers.filter(Boolean).length} ` +
      `of ${sameAnswers.length} queries compared`,
  );
  console.log(verdict(`MCP recall p50 at most ${TARGET}× REST's`, ratio <= TARGET, `${fixed(ratio)}×`));
} finally {
  await mcp.close();
  await server.stop();
}
