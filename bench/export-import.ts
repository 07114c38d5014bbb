// npm run bench:export-import [-- --memories 100000 --embedder hash]
// Export and import of one user's memories, each server in its own process on a fresh PGlite directory (or on
// DATABASE_URL): N memories are loaded through POST /api/v1/memory/batch (100 a request, one at a time: the batch
// create throughput), exported with their vectors through GET /api/v1/export?embeddings=true into a file (the
// server's resident memory sampled every 20 ms meanwhile: its growth over its resident memory before the export),
// then imported through POST /api/v1/import into a second, empty server (the same embedder, so the vectors are
// kept), and imported there again (every record skipped). Target (issue 18): the export grows the server's
// resident memory by less than 100 MB at 100 000 memories.
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { get, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { positiveInt } from "./lib/args.ts";
import { vectorsLanded } from "./lib/backlog.ts";
import { BenchClient, progress } from "./lib/client.ts";
import { generateMemories } from "./lib/corpus.ts";
import { machineLine } from "./lib/machine.ts";
import { rssDuring } from "./lib/process-memory.ts";
import { startBenchServer, type BenchServer } from "./lib/server.ts";
import { printTable, verdict, type Cell } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "100000" },
    embedder: { type: "string", default: "hash" },
  },
});
const total = positiveInt("memories", values.memories);
const embedder = values.embedder;
const TARGET_EXPORT_RSS_MB = 100;
// the import stores as it reads its body: the request may take as long as the import does
const env = { EMBEDDER: embedder, HTTP_REQUEST_TIMEOUT_SECONDS: "3600" };

interface ImportReply {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  results: { status: string; error?: { code: string; message: string } }[];
}

/** GET /api/v1/export into `file`, written as it arrives; the lines counted. */
async function exportTo(server: BenchServer, file: string): Promise<number> {
  // node:http rather than fetch: undici's web stream, turned into a Node stream, cost the bench itself more CPU
  // than the server spent exporting (a core and a half for a few hundred lines a second)
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`${server.url}/api/v1/export?embeddings=true`, { headers: { authorization: `Bearer ${server.key}` } }, resolve).on("error", reject),
  );
  if (res.statusCode !== 200) throw new Error(`export: ${res.statusCode}`);
  let lines = 0;
  res.on("data", (chunk: Buffer) => {
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines++;
  });
  await pipeline(res, createWriteStream(file));
  return lines;
}

/** POST /api/v1/import with `file` as the body, streamed. */
async function importFrom(server: BenchServer, file: string): Promise<ImportReply> {
  const res = await fetch(`${server.url}/api/v1/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.key}`, "content-type": "application/x-ndjson" },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
  if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
  const reply = (await res.json()) as ImportReply;
  const failed = reply.results.find((result) => result.status === "failed");
  if (failed) throw new Error(`import: ${reply.failed} records failed, e.g. ${failed.error?.code} ${failed.error?.message}`);
  return reply;
}

const seconds = (startedMs: number) => (performance.now() - startedMs) / 1000;

console.log(
  `bench:export-import  ${total.toLocaleString("en-US")} memories of one user, EMBEDDER=${embedder}, ` +
    `${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}, each server in a child process`,
);
console.log(`${machineLine()}\n`);

const dir = mkdtempSync(join(tmpdir(), "memory-export-bench-"));
const file = join(dir, "export.ndjson");
const rows: Cell[][] = [];
let exportGrowth = NaN;
try {
  const source = await startBenchServer(env);
  try {
    const corpus = generateMemories(total).map((m) => ({ content: m.content, type: m.type, tags: m.tags }));
    const client = new BenchClient(source.url, source.key);
    const started = performance.now();
    const loaded = await rssDuring(source.pid, () => client.batchCreate(corpus, { onStored: (n) => progress("batch create", n, total, started) }));
    const load = loaded.result;
    rows.push(["batch create into an empty server (100 a request)", load.ids.length, load.wallMs / 1000, (load.ids.length * 1000) / load.wallMs, loaded.max - loaded.before]);
    // the vector index catches up in the background: an export meanwhile shares the database with it, and the
    // index's growth would be counted as the export's
    console.log(`the vector index caught up ${((await vectorsLanded(source.url)) / 1000).toFixed(1)} s after the last batch`);

    const exportStarted = performance.now();
    const exported = await rssDuring(source.pid, () => exportTo(source, file));
    const exportSeconds = seconds(exportStarted);
    exportGrowth = exported.max - exported.before;
    rows.push([`export with vectors (${Math.round(statSync(file).size / 1024 / 1024)} MB of NDJSON)`, exported.result, exportSeconds, exported.result / exportSeconds, exportGrowth]);
  } finally {
    await source.stop();
  }

  const target = await startBenchServer(env);
  try {
    for (const label of ["import into an empty server, vectors kept", "import again (every record skipped)"]) {
      const started = performance.now();
      const imported = await rssDuring(target.pid, () => importFrom(target, file));
      const records = imported.result.created + imported.result.updated + imported.result.skipped;
      const took = seconds(started);
      rows.push([label, records, took, records / took, imported.max - imported.before]);
      console.log(`the vector index caught up ${((await vectorsLanded(target.url)) / 1000).toFixed(1)} s after the import`);
    }
  } finally {
    await target.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

printTable(["operation", "records", "seconds", "records/s", "server RSS growth MB"], rows);
console.log(
  "(RSS growth: the server's highest resident memory during the operation, sampled every 20 ms, over its resident memory " +
    "before it; a fresh embedded database grows its heap as it fills, and keeps it)\n",
);
console.log(machineLine());
console.log(
  verdict(
    `server RSS growth during the export of ${total.toLocaleString("en-US")} memories`,
    exportGrowth < TARGET_EXPORT_RSS_MB,
    `${Math.round(exportGrowth)} MB < ${TARGET_EXPORT_RSS_MB} MB`,
  ),
);
