// npm run bench:footprint [-- --memories 100000 --checkpoints 20000 --embedder use --rest 60]
// Resident memory and disk of the embedded service as `npm start` runs it (the build, PGlite, the default
// sentence encoder loaded), each time at rest, `--settle` seconds after its last request (longer than the 10 s
// after which encoder threads beyond the first stop): after start (once /readyz answers 200), at each checkpoint
// of memories of one user loaded through the batch route and embedded, and after a restart on the full data
// directory. The full load and the restart are measured again `--rest` seconds after their last request: V8
// gives back the heap a load grew only some 30-60 s later, after its next collections, so that reading is the
// one the targets are checked against. The peak column is the process' high-water mark so far, under the load too. A bare node:http server's resident memory is printed beside it, as the floor any Node.js
// service starts from. Targets (issue 14): at most 400 MB after start, 600 MB with 100 000 memories, and a data
// directory of at most 500 MB with 100 000 short memories. Then where the data directory's bytes are: the largest
// relations (table and index each) and the files of the vector index; and where the resident memory is at rest
// after the load and after the restart (mappings of /proc/<pid>/smaps by kind, the V8 heap from /metrics).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, startServerProcess } from "../scripts/lib/server-process.ts";
import { intList, positiveInt } from "./lib/args.ts";
import { vectorsLanded } from "./lib/backlog.ts";
import { BenchClient, progress } from "./lib/client.ts";
import { generateMemories } from "./lib/corpus.ts";
import { openPGlite } from "../src/db/pglite.ts";
import { machineLine } from "./lib/machine.ts";
import { memoryOf, residentByKind } from "./lib/process-memory.ts";
import { removeDataDir, startBenchServer } from "./lib/server.ts";
import { printTable, verdict, type Cell } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "100000" },
    checkpoints: { type: "string", default: "20000" },
    embedder: { type: "string", default: "use" },
    settle: { type: "string", default: "12" },
    rest: { type: "string", default: "60" },
  },
});
const total = positiveInt("memories", values.memories);
const every = intList("checkpoints", values.checkpoints)[0] ?? total;
const settleMs = positiveInt("settle", values.settle) * 1000;
const restMs = positiveInt("rest", values.rest) * 1000;
const TARGETS = { startMb: 400, fullMb: 600, diskMb: 500, at: 100_000 };
const MB = 1024 * 1024;

/** Bytes on disk under `path`, as du counts them (allocated blocks, symbolic links not followed). */
function diskBytes(path: string): number {
  const stats = lstatSync(path);
  const own = stats.blocks * 512;
  return stats.isDirectory() ? own + readdirSync(path).reduce((sum, name) => sum + diskBytes(join(path, name)), 0) : own;
}

/** Relations of at least 1 MB and the vector index's files, largest first, in MB. */
async function breakdown(dataDir: string): Promise<Cell[][]> {
  const db = await openPGlite(dataDir);
  try {
    const relations = await db.sql.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND pg_relation_size(c.oid) >= $1 ORDER BY 2 DESC`,
      [MB],
    );
    const vectorsDir = join(dataDir, "vectors");
    const files = readdirSync(vectorsDir, { recursive: true, encoding: "utf8" })
      .filter((name) => !lstatSync(join(vectorsDir, name)).isDirectory())
      .map((name) => ({ name: `vectors/…${name.replace(/^.*[0-9a-f-]{36}/, "")}`, bytes: diskBytes(join(vectorsDir, name)) }))
      .filter(({ bytes }) => bytes >= MB);
    return [...relations.map(({ name, bytes }) => ({ name, bytes: Number(bytes) })), ...files]
      .sort((a, b) => b.bytes - a.bytes)
      .map(({ name, bytes }) => [name, bytes / MB]);
  } finally {
    await db.close();
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, settleMs));
/** The main thread's V8 heap and external memory (array buffers, WebAssembly memories) as its /metrics has them, MB. */
async function v8Of(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? NaN) / MB;
  return {
    "main thread's V8 heap (total)": metric("nodejs_heap_size_total_bytes"),
    "of which used": metric("nodejs_heap_size_used_bytes"),
    "main thread's external memory": metric("nodejs_external_memory_bytes"),
  };
}

/** Where a process' resident memory is, for the table printed at the end: one column a reading. */
const residentColumns: { label: string; values: Map<string, number> }[] = [];
async function readResident(label: string, pid: number, url: string): Promise<void> {
  const values = new Map<string, number>(residentByKind(pid));
  for (const [name, mb] of Object.entries(await v8Of(url))) values.set(name, mb);
  residentColumns.push({ label, values });
}

/** The rest of `--rest` after a `settle`. */
const rest = () => new Promise((resolve) => setTimeout(resolve, Math.max(0, restMs - settleMs)));

async function waitReady(url: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (await fetch(`${url}/readyz`).then((res) => res.ok, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}/readyz did not answer 200 within 60 s`);
}

/** The floor: a node:http server that answers one request, measured the same way. */
async function bareServerMb(): Promise<number> {
  const port = await freePort();
  const code = "require('node:http').createServer((q, s) => s.end('ok')).listen(+process.env.PORT, '127.0.0.1')";
  const child = spawn(process.execPath, ["-e", code], { env: { ...process.env, PORT: String(port) }, stdio: "ignore" });
  try {
    while (!(await fetch(`http://127.0.0.1:${port}/`).then((res) => res.ok, () => false))) await new Promise((r) => setTimeout(r, 20));
    await settle();
    return memoryOf(child.pid!).rss;
  } finally {
    child.kill();
    await once(child, "exit");
  }
}

console.log(machineLine());
console.log(`footprint of npm start (PGlite, EMBEDDER=${values.embedder}), ${total.toLocaleString("en-US")} memories of one user\n`);
const rows: Cell[][] = [["bare node:http server", "-", await bareServerMb(), "-", "-", "-", "-"]];
const count = (n: number) => n.toLocaleString("en-US");
const server = await startBenchServer({ EMBEDDER: values.embedder! }, { keepData: true });
let afterStart = NaN;
let full = { rss: NaN, disk: NaN };
let sizes: Cell[][] = [];
const measureRow = (label: string, memories: number, pid: number) => {
  const { rss, peak } = memoryOf(pid);
  const disk = diskBytes(server.dataDir) / MB;
  rows.push([label, count(memories), rss, peak, disk, diskBytes(join(server.dataDir, "pg_wal")) / MB, diskBytes(join(server.dataDir, "vectors")) / MB]);
  return { rss, disk };
};
try {
  await waitReady(server.url);
  await settle();
  afterStart = measureRow("npm start, empty data dir", 0, server.pid).rss;
  const client = new BenchClient(server.url, server.key);
  const items = generateMemories(total).map(({ content, type, tags }) => ({ content, type, tags }));
  const started = performance.now();
  for (let loaded = 0; loaded < total; ) {
    const next = Math.min(total, loaded + every);
    await client.batchCreate(items.slice(loaded, next), { concurrency: 2, onStored: (n) => progress("loading", loaded + n, total, started) });
    loaded = next;
    await vectorsLanded(server.url);
    await settle();
    full = measureRow("loaded and embedded", loaded, server.pid);
  }
  await rest();
  full = measureRow(`the same, ${restMs / 1000} s after the load`, total, server.pid);
  await readResident("after the load", server.pid, server.url);
  await server.stop();
  const restarted = await startServerProcess(server.env, "built");
  try {
    await waitReady(restarted.url);
    await settle();
    measureRow("npm start again on that data dir", total, restarted.child.pid!);
    await rest();
    measureRow(`the same, ${restMs / 1000} s after its start`, total, restarted.child.pid!);
    await readResident("after a restart", restarted.child.pid!, restarted.url);
  } finally {
    restarted.child.kill("SIGTERM");
    await restarted.exited;
  }
  sizes = await breakdown(server.dataDir);
} finally {
  await server.stop().catch(() => {});
  removeDataDir(server.dataDir);
}

printTable(["state", "memories", "RSS MB", "peak RSS MB", "data dir MB", "of which pg_wal", "of which vectors"], rows);
console.log();
printTable(["in the data directory at the end (≥ 1 MB)", "MB"], sizes);
console.log();
const residentRows = [...new Set(residentColumns.flatMap(({ values }) => [...values.keys()]))];
printTable(
  [`where the resident memory is, ${restMs / 1000} s at rest (MB)`, ...residentColumns.map(({ label }) => label)],
  residentRows.map((row) => [row, ...residentColumns.map(({ values }) => values.get(row) ?? 0)]),
);
console.log();
console.log(verdict(`RSS after start ≤ ${TARGETS.startMb} MB`, afterStart <= TARGETS.startMb, `${Math.round(afterStart)} MB`));
if (total >= TARGETS.at) {
  console.log(verdict(`RSS with ${TARGETS.at.toLocaleString("en-US")} memories ≤ ${TARGETS.fullMb} MB`, full.rss <= TARGETS.fullMb, `${Math.round(full.rss)} MB`));
  console.log(verdict(`data dir with ${TARGETS.at.toLocaleString("en-US")} memories ≤ ${TARGETS.diskMb} MB`, full.disk <= TARGETS.diskMb, `${Math.round(full.disk)} MB`));
} else {
  console.log(`(the 100 000-memory targets need --memories 100000)`);
}
