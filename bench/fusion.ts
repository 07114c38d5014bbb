// npm run bench:fusion -- <path-to-locomo.json>
// How the fusion constants of src/domain/fusion.ts were chosen, re-run on demand: loads each LoCoMo conversation
// as one user's memories (one memory per turn, each session a thread) into the service in this process with the
// sentence encoder, waits for every vector, then for every question of categories 1-4 gathers the lists fusion
// works on (BM25 with feedback and thread context as recall uses it, plain BM25 and the query's weight as search
// uses it, exact cosine similarities over the user's vectors) and prints recall@10 over a grid of settings,
// through the same fusion functions the service calls. Tune on the development split only.
import { readFileSync } from "node:fs";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { blendScores, LEXICAL_SHARE, reciprocalRankFusion, RRF_K, type Fused } from "../src/domain/fusion.ts";
import { keyAdmin } from "../src/domain/key-admin.ts";
import { searchLexical, type LexicalHit, type WordMatches } from "../src/domain/lexical.ts";
import { searchWords } from "../src/domain/sql-terms.ts";
import { SqlTerms } from "../src/domain/sql-terms.ts";
import { createLogger } from "../src/logger.ts";
import { cosine, storedToVector } from "../src/vectors/codec.ts";
import { vectorsLanded } from "./lib/backlog.ts";
import { machineLine } from "./lib/machine.ts";
import { printTable } from "./lib/table.ts";

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}
interface Conversation {
  sample_id: string;
  conversation: Record<string, Turn[] | string>;
  qa: { question: string; evidence: string[]; category: number }[];
}
interface Lists {
  evidence: Set<string>;
  /** memory id → dia_id */
  dia: Map<string, string>;
  recallLexical: LexicalHit[];
  words: WordMatches;
  semantic: { id: string; score: number }[];
}

const path = process.argv[2];
if (!path) {
  console.error("usage: npm run bench:fusion -- <path-to-locomo.json>");
  process.exit(2);
}
const conversations = JSON.parse(readFileSync(path, "utf8")) as Conversation[];
const DEPTH = 100;

console.log(`bench:fusion  ${path}: ${conversations.length} conversations, categories 1-4, sentence encoder`);
console.log(machineLine());
const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", DATA_DIR: "memory://", RATE_LIMIT_MAX: "100000000", EMBEDDER: "use" });
const app = await createApp(config, createLogger(config.logLevel));
const url = `http://127.0.0.1:${(await app.listen()).port}`;
const questions: Lists[] = [];
try {
  for (const conversation of conversations) {
    const { key, userId } = await keyAdmin(app.services).create(`${conversation.sample_id}@locomo`, "bench");
    const api = async <T>(route: string, body: unknown): Promise<T> => {
      const res = await fetch(url + route, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const dia = new Map<string, string>();
    const sessions = Object.keys(conversation.conversation).filter((name) => /^session_\d+$/.test(name));
    for (const session of sessions.sort((a, b) => Number(a.split("_")[1]) - Number(b.split("_")[1]))) {
      const turns = conversation.conversation[session] as Turn[];
      const thread = await api<{ id: string }>("/api/v1/threads", { title: session });
      for (let i = 0; i < turns.length; i += 100) {
        const chunk = turns.slice(i, i + 100);
        const stored = await api<{ results: { id: string }[] }>("/api/v1/memory/batch", {
          memories: chunk.map((turn) => ({ content: `${turn.speaker}: ${turn.text}`, thread_id: thread.id })),
        });
        stored.results.forEach((result, k) => dia.set(result.id, chunk[k]!.dia_id));
      }
    }
    await vectorsLanded(url);
    const rows = await app.db.sql.query<{ id: string; embedding: Uint8Array }>(
      "SELECT id, embedding FROM memories WHERE user_id = $1::uuid",
      [userId],
    );
    const vectors = rows.map((row) => ({ id: row.id, vector: storedToVector(row.embedding) }));
    for (const qa of conversation.qa.filter((q) => q.category >= 1 && q.category <= 4)) {
      const [query] = await app.services.embedder.embed([qa.question]);
      questions.push({
        evidence: new Set(qa.evidence),
        dia,
        recallLexical: await searchLexical(new SqlTerms(app.db, app.services.termStats, userId), qa.question, DEPTH),
        words: await searchWords(app.db, app.services.termStats, userId, qa.question, DEPTH),
        semantic: vectors.map(({ id, vector }) => ({ id, score: cosine(query!, vector) })).sort((a, b) => b.score - a.score),
      });
    }
  }
} finally {
  await app.close();
}

const at10 = (rank: (q: Lists) => Fused[] | { id: string }[]) =>
  questions.filter((q) => rank(q).slice(0, 10).some((hit) => q.evidence.has(q.dia.get(hit.id)!))).length / questions.length;
const ranked = (hits: { id: string }[]) => hits.map((hit, i) => ({ id: hit.id, rank: i + 1 }));

console.log(`\n${questions.length} questions; recall@10 of each list alone:`);
printTable(
  ["list", "recall@10"],
  [
    ["BM25 with feedback and thread context (recall's)", at10((q) => q.recallLexical).toFixed(3)],
    ["plain BM25 (search's)", at10((q) => q.words.hits).toFixed(3)],
    ["sentence vectors", at10((q) => q.semantic).toFixed(3)],
  ],
);

const weights = [0.3, 0.4, 0.5, 0.6, 0.7, 1];
console.log(`\nrecall: reciprocal rank fusion, BM25 weight 1, rows K, columns the vector list's weight (in use: K ${RRF_K}, 0.5)`);
printTable(
  ["K", ...weights.map(String)],
  [10, 15, 20, 30, 40].map((k) => [
    String(k),
    ...weights.map((w) =>
      at10((q) => reciprocalRankFusion([{ weight: 1, hits: q.recallLexical }, { weight: w, hits: ranked(q.semantic.slice(0, DEPTH)) }], k)).toFixed(3),
    ),
  ]),
);

/** What search blends: the vector index's first DEPTH, and the cosine of every BM25 hit beyond them. */
function searchSemantic(q: Lists): { id: string; score: number }[] {
  const top = q.semantic.slice(0, DEPTH);
  const inTop = new Set(top.map((hit) => hit.id));
  const lexical = new Set(q.words.hits.map((hit) => hit.id));
  return [...top, ...q.semantic.filter((hit) => lexical.has(hit.id) && !inTop.has(hit.id))];
}

const shares = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1];
console.log(`\nsearch: blend of plain BM25 over the query's weight and cosine, columns BM25's share (in use: ${LEXICAL_SHARE})`);
printTable(
  ["share", ...shares.map(String)],
  [["recall@10", ...shares.map((share) => at10((q) => blendScores(q.words.hits, q.words.weight, searchSemantic(q), share)).toFixed(3))]],
);
console.log(machineLine());
