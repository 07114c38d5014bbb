// npm run bench:recall-quality -- <path-to-locomo.json>
// Loads each LoCoMo conversation as one user's memories (one memory per turn, "speaker: text", through the
// REST API, each session a thread), asks every question of categories 1-4 through search and through recall,
// and prints recall@5 and recall@10: a hit when an evidence turn is among the top k. Once per embedder
// available: the sentence encoder (the default) and the hashed embedder always, an OpenAI-compatible one when
// OPENAI_API_KEY or OPENAI_BASE_URL is set. Questions are asked once every memory's vector has landed.
import { readFileSync } from "node:fs";
import { runScript } from "../scripts/lib/server-process.ts";
import { vectorsLanded } from "./lib/backlog.ts";
import { machineLine } from "./lib/machine.ts";
import { startBenchServer, type BenchServer } from "./lib/server.ts";

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}
interface Question {
  question: string;
  evidence: string[];
  category: number;
}
interface Conversation {
  sample_id: string;
  conversation: Record<string, Turn[] | string>;
  qa: Question[];
}

const path = process.argv[2];
if (!path) {
  console.error("usage: npm run bench:recall-quality -- <path-to-locomo.json>");
  process.exit(2);
}
const conversations = JSON.parse(readFileSync(path, "utf8")) as Conversation[];

type Mode = "search" | "recall";
interface Tally {
  questions: number;
  at5: number;
  at10: number;
  ms: number[];
}

async function api(server: BenchServer, key: string, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(server.url + route, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Stores one conversation for a new user; returns the user's key and memory id → dia_id. */
async function load(server: BenchServer, env: Record<string, string>, conversation: Conversation) {
  const created = await runScript("keys", ["create", "--user", `${conversation.sample_id}@locomo`, "--name", "bench", "--json"], env);
  if (created.code !== 0) throw new Error(created.stderr);
  const { key } = JSON.parse(created.stdout) as { key: string };
  const diaOf = new Map<string, string>();
  const sessions = Object.keys(conversation.conversation)
    .filter((name) => /^session_\d+$/.test(name))
    .sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]));
  for (const session of sessions) {
    const turns = conversation.conversation[session] as Turn[];
    const thread = await api(server, key, "POST", "/api/v1/threads", { title: `${conversation.sample_id} ${session}` });
    for (let i = 0; i < turns.length; i += 100) {
      const chunk = turns.slice(i, i + 100);
      const result = await api(server, key, "POST", "/api/v1/memory/batch", {
        memories: chunk.map((turn) => ({ content: `${turn.speaker}: ${turn.text}`, thread_id: thread.id })),
      });
      result.results.forEach((r: { id: string }, k: number) => diaOf.set(r.id, chunk[k]!.dia_id));
    }
  }
  return { key, diaOf };
}

async function evaluate(name: string, env: Record<string, string>): Promise<void> {
  const server = await startBenchServer(env);
  const tallies: Record<Mode, Tally> = {
    search: { questions: 0, at5: 0, at10: 0, ms: [] },
    recall: { questions: 0, at5: 0, at10: 0, ms: [] },
  };
  const queryTypes = new Map<string, number>();
  try {
    const settings = { ...server.env };
    for (const conversation of conversations) {
      const { key, diaOf } = await load(server, settings, conversation);
      await vectorsLanded(server.url);
      for (const qa of conversation.qa.filter((q) => q.category >= 1 && q.category <= 4)) {
        const evidence = new Set(qa.evidence);
        for (const mode of ["search", "recall"] as const) {
          const started = performance.now();
          const found =
            mode === "search"
              ? await api(server, key, "GET", `/api/v1/memory/search?query=${encodeURIComponent(qa.question)}&limit=10`)
              : await api(server, key, "POST", "/api/v1/memory/recall", { query: qa.question, limit: 10 });
          tallies[mode].ms.push(performance.now() - started);
          if (mode === "recall") queryTypes.set(found.query_type, (queryTypes.get(found.query_type) ?? 0) + 1);
          const ranks = (found.results as { id: string }[]).map((r) => diaOf.get(r.id));
          const first = ranks.findIndex((dia) => dia !== undefined && evidence.has(dia));
          const tally = tallies[mode];
          tally.questions++;
          if (first >= 0 && first < 5) tally.at5++;
          if (first >= 0 && first < 10) tally.at10++;
        }
      }
    }
  } finally {
    await server.stop();
  }
  for (const mode of ["search", "recall"] as const) {
    const t = tallies[mode];
    const sorted = [...t.ms].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length * 0.5)]!;
    console.log(
      `${name.padEnd(28)} ${mode.padEnd(7)} recall@5 ${(t.at5 / t.questions).toFixed(3)}   recall@10 ${(t.at10 / t.questions).toFixed(3)}` +
        `   (${t.questions} questions, p50 ${p50.toFixed(1)} ms)`,
    );
  }
  console.log(`${"".padEnd(28)} recall query types: ${[...queryTypes].map(([k, v]) => `${k} ${v}`).join(", ")}`);
}

// the server process inherits no embedding settings, so each run names its own
const embedders: [string, Record<string, string>][] = [
  ["sentence encoder (default, use-lite)", { EMBEDDER: "use" }],
  ["hashed (builtin-hash-v1)", { EMBEDDER: "hash" }],
];
if (process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL) {
  const openai = Object.fromEntries(
    ["OPENAI_API_KEY", "OPENAI_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_DIMENSIONS"]
      .filter((name) => process.env[name])
      .map((name) => [name, process.env[name]!]),
  );
  embedders.push([`OpenAI-compatible (${process.env.EMBEDDING_MODEL ?? "text-embedding-3-small"})`, { ...openai, EMBEDDER: "openai" }]);
}
console.log(`LoCoMo file ${path}: ${conversations.length} conversations, categories 1-4`);
console.log(`${machineLine()}\n`);
for (const [name, env] of embedders) await evaluate(name, env);
// the latencies beside the quality figures depend on what else ran meanwhile
console.log(`\n${machineLine()}`);
