// npm run bench:startup [-- --rounds 5]
// Cold start: from spawning a server to the first 200 from /healthz (alive), and on to the first 200 from /readyz
// (database open, model loaded: the service is up, which /healthz no longer waits for), interleaved round by round so that every
// variant sees the same machine: a bare node:http server through `npm exec` (the floor: npm's own start is in
// both), `npm start` (the built JavaScript in dist/server) on an empty data directory and on one it has run on
// before, with the sentence encoder (the default) and with the hashed embedder, and `npm run dev` (TypeScript
// through tsx). Targets: `npm start` at most 3× the bare server; with the model at most 1.5× without it.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, root } from "../scripts/lib/server-process.ts";
import { machineLine } from "./lib/machine.ts";
import { positiveInt } from "./lib/args.ts";
import { newDataDir, removeDataDir } from "./lib/server.ts";
import { summarize } from "./lib/stats.ts";
import { fixed, printTable, verdict } from "./lib/table.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const rounds = positiveInt("rounds", values.rounds);
const MODEL_RATIO = 1.5;
const BARE_RATIO = 3;

const BUILT = join(root, "dist", "server", "main.mjs");
if (!existsSync(BUILT)) throw new Error(`${BUILT} (what npm start runs) is missing: run npm run build first`);
const BARE_SERVER =
  "require('node:http').createServer((q, s) => s.end('{\"status\":\"ok\"}')).listen(+process.env.PORT, process.env.HOST)";

interface Variant {
  name: string;
  command: string[];
  embedder?: string;
  /** A data directory the server has run on before (kept across rounds), rather than an empty one. */
  reused?: string;
}

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const start = [NPM, "start", "--silent"];
const reusedDir = newDataDir();
const variants: Variant[] = [
  { name: "bare node:http server (npm exec)", command: [NPM, "exec", "--", "node", "-e", BARE_SERVER] },
  { name: "npm start, empty data dir, EMBEDDER=use (default)", command: start, embedder: "use" },
  { name: "npm start, empty data dir, EMBEDDER=hash", command: start, embedder: "hash" },
  { name: "npm start, data dir used before, EMBEDDER=use", command: start, embedder: "use", reused: reusedDir },
  { name: "npm run dev (tsx), empty data dir, EMBEDDER=use", command: [NPM, "run", "dev", "--silent"], embedder: "use" },
];

/** Answers whether `path` gave a 200. */
const ok = (port: number, path: string) => fetch(`http://127.0.0.1:${port}${path}`).then((res) => res.ok, () => false);

/** Milliseconds from spawn to the first 200 from `path`, polled every 5 ms. */
async function firstOk(child: ChildProcess, port: number, path: string, started: number, name: string, stderr: () => string): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${stderr()}`);
    if (await ok(port, path)) return performance.now() - started;
    if (performance.now() - started > 60_000) throw new Error(`${name}: no 200 from ${path} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Milliseconds from spawn to the first 200 from /healthz and from /readyz, then a clean stop. */
async function coldStart({ name, command, embedder, reused }: Variant): Promise<{ healthy: number; ready: number }> {
  const port = await freePort();
  const dir = reused ?? newDataDir();
  const started = performance.now();
  const [program, ...args] = command as [string, ...string[]];
  // detached: npm's child (the server) gets the stop signal too, through the process group
  const child = spawn(program, args, {
    detached: true,
    cwd: root,
    env: { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...(embedder ? { EMBEDDER: embedder } : {}) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  try {
    const healthy = await firstOk(child, port, "/healthz", started, name, () => stderr);
    const ready = await firstOk(child, port, "/readyz", started, name, () => stderr);
    return { healthy, ready };
  } finally {
    if (child.exitCode === null) {
      const exited = once(child, "exit");
      process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
    if (!reused) removeDataDir(dir);
  }
}

console.log(`bench:startup  ${rounds} rounds, time to the first 200 from /healthz`);
console.log(machineLine());
await coldStart(variants[3]!); // the data directory "used before": made once, not timed
const times = variants.map(() => [] as number[]);
const readyTimes = variants.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  for (const [i, variant] of variants.entries()) {
    const { healthy, ready } = await coldStart(variant);
    times[i]!.push(healthy);
    readyTimes[i]!.push(ready);
  }
}
const p50 = times.map((t) => summarize(t, 0).p50);
const readyP50 = readyTimes.map((t) => summarize(t, 0).p50);
printTable(
  ["variant", "starts", "p50 ms", "min ms", "max ms", "× bare", "/readyz p50 ms", "× bare"],
  variants.map((variant, i) => [
    variant.name,
    String(rounds),
    p50[i]!,
    Math.min(...times[i]!),
    Math.max(...times[i]!),
    p50[i]! / p50[0]!,
    readyP50[i]!,
    readyP50[i]! / readyP50[0]!,
  ]),
);
console.log(machineLine());
removeDataDir(reusedDir);
const [bare, built, builtHash, builtReused] = p50 as [number, number, number, number];
console.log(verdict("npm start, empty data dir, against a bare server", built <= BARE_RATIO * bare, `p50 ${fixed(built / bare)}× (<= ${BARE_RATIO}×)`));
console.log(verdict("npm start, data dir used before, against a bare server", builtReused <= BARE_RATIO * bare, `p50 ${fixed(builtReused / bare)}× (<= ${BARE_RATIO}×)`));
console.log(verdict("cold start with the model", built <= MODEL_RATIO * builtHash, `p50 ${fixed(built / builtHash)}× the start without it (<= ${MODEL_RATIO}×)`));
