// npm run bench:embedder [-- --texts 640 --queries 100]
// The embedders alone, in this process: texts/s of the sentence encoder's worker pool at 1 and 2 threads (batches
// of background work), one query's latency when the pool is idle and while a background batch is embedding
// (queries go first), a repeated query (cached), the drafts a new memory is indexed under until its vector lands,
// and the hashed embedder for comparison; then how each ranks the paraphrase fixture's memories (exact cosine,
// questions embedded by the encoder): drafts against the encoder's own vectors.
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { DISTRACTORS, PARAPHRASES } from "../test/fixtures/paraphrases.ts";
import { BuiltinEmbedder } from "../src/embeddings/builtin.ts";
import { cosine } from "../src/vectors/codec.ts";
import { SentenceEncoder } from "../src/embeddings/sentence-encoder.ts";
import { positiveInt } from "./lib/args.ts";
import { generateMemories, generateQueries } from "./lib/corpus.ts";
import { machineLine } from "./lib/machine.ts";
import { measure, summarize } from "./lib/stats.ts";
import { printTable, type Cell } from "./lib/table.ts";

const { values } = parseArgs({ options: { texts: { type: "string", default: "640" }, queries: { type: "string", default: "100" } } });
const textCount = positiveInt("texts", values.texts);
const queryCount = positiveInt("queries", values.queries);
const texts = generateMemories(textCount).map((m) => m.content);
const queries = generateQueries(queryCount, 3);
const meanChars = texts.reduce((sum, t) => sum + t.length, 0) / texts.length;

console.log(`bench:embedder  ${textCount} memory texts (mean ${meanChars.toFixed(0)} characters), ${queryCount} queries`);
console.log(machineLine());

const rows: Cell[][] = [];
const paraphraseRanks: Cell[][] = [];
const rate = (n: number, ms: number) => (n * 1000) / ms;

const hash = new BuiltinEmbedder();
let started = performance.now();
await hash.embed(texts);
rows.push(["hashed", "-", "memory texts, one call", rate(textCount, performance.now() - started), "-", "-"]);

for (const threads of [...new Set([1, Math.min(2, availableParallelism())])]) {
  const encoder = SentenceEncoder.create({ threads });
  await encoder.ready();
  try {
    await encoder.embed(texts.slice(0, 32), "background"); // warm-up
    started = performance.now();
    await encoder.embed(texts, "background");
    rows.push(["sentence encoder", String(threads), "memory texts, background", rate(textCount, performance.now() - started), "-", "-"]);

    const idle = await measure(queryCount, 1, (i) => encoder.embed([`${queries[i]!} (idle ${threads})`]));
    const idleSummary = summarize(idle.ms, idle.wallMs);
    rows.push(["sentence encoder", String(threads), "one query, pool idle", idleSummary.perSecond, idleSummary.p50, idleSummary.p95]);

    // background work kept waiting for the whole run, as while an import is being embedded
    let querying = true;
    const background = (async () => {
      while (querying) await encoder.embed(texts.slice(0, 64), "background");
    })();
    const busy = await measure(queryCount, 1, (i) => encoder.embed([`${queries[i]!} (busy ${threads})`]));
    querying = false;
    await background;
    const busySummary = summarize(busy.ms, busy.wallMs);
    rows.push(["sentence encoder", String(threads), "one query, background batch running", busySummary.perSecond, busySummary.p50, busySummary.p95]);

    const cached = await measure(queryCount, 1, (i) => encoder.embed([`${queries[i]!} (idle ${threads})`]));
    const cachedSummary = summarize(cached.ms, cached.wallMs);
    rows.push(["sentence encoder", String(threads), "one query, repeated (cache)", cachedSummary.perSecond, cachedSummary.p50, cachedSummary.p95]);

    if (threads === 1) {
      started = performance.now();
      const drafted = texts.filter((text) => encoder.draft(text)).length;
      rows.push(["encoder's drafts", "-", `memory texts (${drafted} had a known word)`, rate(textCount, performance.now() - started), "-", "-"]);
      paraphraseRanks.push(...(await rankParaphrases(encoder)));
    }
  } finally {
    await encoder.close();
  }
}
printTable(["embedder", "threads", "work", "texts/s", "p50 ms", "p95 ms"], rows);
console.log(`\nparaphrase fixture: ${PARAPHRASES.length} questions among ${PARAPHRASES.length + DISTRACTORS.length} memories`);
printTable(["memories' vectors", "question's memory first", "in the top 3"], paraphraseRanks);
console.log(machineLine());

/** Where each paraphrase question ranks its memory, under the encoder's vectors of the memories and under drafts. */
async function rankParaphrases(encoder: SentenceEncoder): Promise<Cell[][]> {
  const memories = [...PARAPHRASES.map((pair) => pair.memory), ...DISTRACTORS];
  const questions = await encoder.embed(PARAPHRASES.map((pair) => pair.question));
  const encoded = await encoder.embed(memories);
  const drafts = memories.map((memory) => encoder.draft(memory));
  const row = (name: string, vectors: (Float32Array | undefined)[]): Cell[] => {
    const ranks = questions.map((question, i) => {
      const score = (v: Float32Array | undefined) => (v ? cosine(question, v) : -1);
      return vectors.filter((v, j) => j !== i && score(v) > score(vectors[i])).length;
    });
    return [name, String(ranks.filter((r) => r === 0).length), String(ranks.filter((r) => r < 3).length)];
  };
  return [row("the encoder's", encoded), row("drafts", drafts)];
}
