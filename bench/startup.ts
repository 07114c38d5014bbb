// npm run bench:startup [-- --rounds 5]
// Cold start: from spawning the server (`node --import tsx src/main.ts`, what `npm start` runs) on a fresh PGlite
// directory to the first 200 from /healthz, with the sentence encoder (the default) and with the hashed embedder,
// interleaved round by round so that both see the same machine. The target: with the model at most 1.5× without.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { freePort, root } from "../scripts/lib/server-process.ts";
import { machineLine } from "./lib/machine.ts";
import { positiveInt } from "./lib/args.ts";
import { newDataDir, removeDataDir } from "./lib/server.ts";
import { summarize } from "./lib/stats.ts";
import { fixed, printTable, verdict } from "./lib/table.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const rounds = positiveInt("rounds", values.rounds);
const TARGET_RATIO = 1.5;

/** Milliseconds from spawn to the first healthy /healthz, then a clean stop. */
async function coldStart(embedder: string): Promise<number> {
  const port = await freePort();
  const dir = newDataDir();
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", EMBEDDER: embedder },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server (${embedder}) exited with ${child.exitCode}: ${stderr}`);
      if (await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false)) break;
      if (performance.now() - started > 60_000) throw new Error(`the server (${embedder}) was not healthy after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return performance.now() - started;
  } finally {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    removeDataDir(dir);
  }
}

console.log(`bench:startup  ${rounds} rounds, fresh PGlite directory each start, time to the first 200 from /healthz`);
console.log(machineLine());
const times: Record<"use" | "hash", number[]> = { use: [], hash: [] };
for (let round = 0; round < rounds; round++) {
  for (const embedder of ["hash", "use"] as const) times[embedder].push(await coldStart(embedder));
}
const use = summarize(times.use, 0);
const hash = summarize(times.hash, 0);
printTable(
  ["embedder", "starts", "p50 ms", "min ms", "max ms"],
  [
    ["use (sentence encoder, default)", String(rounds), use.p50, Math.min(...times.use), use.max],
    ["hash", String(rounds), hash.p50, Math.min(...times.hash), hash.max],
  ],
);
console.log(machineLine());
const ratio = use.p50 / hash.p50;
console.log(verdict("cold start with the model", ratio <= TARGET_RATIO, `p50 ${fixed(ratio)}× the start without it (<= ${TARGET_RATIO}×)`));
