import type { Database, Sql } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import { tokenize } from "../text/tokenize.ts";
import { nthLargest } from "./nth-largest.ts";
import { idf, type CorpusStats } from "./term-stats.ts";

/** Bump when `tokenize` changes: memories whose terms an older version made get theirs made again. */
export const LEXICAL_VERSION = 1;

// BM25 with k1 = 0.9 and b = 0 (no length normalisation: the vector side already favours focused memories),
// tuned on the LoCoMo development split together with the fusion in recall.ts
export const K1 = 0.9;
const MAX_TF = 32_767; // smallint
const BACKFILL_BATCH = 500;

export interface TextOf {
  id: string;
  userId: string;
  content: string;
}

/**
 * memory_terms rows as parallel arrays, the shape `unnest` takes; `of` is the position (from 1) of the row's
 * memory among those given, so that ids are not sent again with every term.
 */
export interface TermRows {
  of: number[];
  terms: string[];
  tfs: number[];
}

export function termRows(memories: readonly { content: string }[]): TermRows {
  const rows: TermRows = { of: [], terms: [], tfs: [] };
  memories.forEach((memory, i) => {
    const counts = new Map<string, number>();
    for (const term of tokenize(memory.content)) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) {
      rows.of.push(i + 1);
      rows.terms.push(term);
      rows.tfs.push(Math.min(tf, MAX_TF));
    }
  });
  return rows;
}

export const termParams = (rows: TermRows): unknown[] => [rows.of, rows.terms, rows.tfs];

/**
 * Inserts term rows passed as parameters $first..$first+2 (see termParams); `memories` names a relation of the
 * memories they belong to, with columns n (the position), id and user_id.
 */
export const insertTermsSql = (first: number, memories: string) =>
  `INSERT INTO memory_terms (memory_id, user_id, term, tf)
   SELECT m.id, m.user_id, t.term, t.tf
     FROM unnest($${first}::int[], $${first + 1}::text[], $${first + 2}::smallint[]) AS t(n, term, tf)
     JOIN ${memories} m USING (n)`;

/**
 * Replaces the terms of memories whose content changed (inside the caller's transaction), leaving their
 * lexical_version to the caller, which sets it to LEXICAL_VERSION in its own update of the rows.
 */
export async function replaceTerms(sql: Sql, memories: readonly TextOf[]): Promise<void> {
  const ids = memories.map((m) => m.id);
  await sql.query("DELETE FROM memory_terms WHERE memory_id = ANY($1::uuid[])", [ids]);
  await sql.query(
    `WITH m AS (SELECT * FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS m(id, user_id, n)) ${insertTermsSql(3, "m")}`,
    [ids, memories.map((m) => m.userId), ...termParams(termRows(memories))],
  );
}

/** Replaces the terms of memories, and records the tokenizer that made them (inside the caller's transaction). */
export async function rewriteTerms(sql: Sql, memories: readonly TextOf[]): Promise<void> {
  await replaceTerms(sql, memories);
  await sql.query("UPDATE memories SET lexical_version = $2 WHERE id = ANY($1::uuid[])", [memories.map((m) => m.id), LEXICAL_VERSION]);
}

export interface LexicalHit {
  id: string;
  score: number;
  /** 1 for the best; memories with equal scores share the average of their positions */
  rank: number;
}

// Pseudo-relevance feedback: the FEEDBACK_TERMS most telling terms (tf·idf) of the FEEDBACK_DOCS best memories
// join the query at FEEDBACK_WEIGHT. Thread context: the memory after a matching one in its thread gets
// CONTEXT_WEIGHT of its score (in a conversation the answer follows the turn that matches the question), for
// the CONTEXT_FROM best memories. Both general, and tuned on the LoCoMo development split with the fusion.
const FEEDBACK_DOCS = 5;
const FEEDBACK_TERMS = 10;
const FEEDBACK_WEIGHT = 0.3;
const CONTEXT_WEIGHT = 0.5;
const CONTEXT_FROM = 200;
/** How many memories a BM25 pass keeps. */
export const SCORED = 1_000;

/** Scores by a source's key for a memory (TermSource). */
export type Scores<K> = Map<K, number>;

/** A term of a BM25 pass and its weight, idf included. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/**
 * One user's terms as recall's BM25 reads them: SQL over memory_terms (sql-terms.ts), or a copy kept in this
 * process for the embedded database (term-index.ts). Both answer alike, so that recall ranks the same either way.
 * Each names memories by a key of its own (`K`): SQL by id, the copy by its slot for the memory, so that the
 * thousands of scores a recall adds and merges are kept by small integers rather than by uuids (five times
 * cheaper in a Map). Live memories are those neither archived nor expired.
 */
export interface TermSource<K = unknown> {
  /**
   * N and df over all of the user's memories, archived ones too; in SQL also expired ones until the sweeper
   * deletes them (the copy lets them go at their expiry), which moves idf by as little as a few memories do.
   */
  stats(terms: readonly string[]): Promise<CorpusStats>;
  /**
   * Σ weight·tf·(k1 + 1)/(tf + k1) of the best SCORED memories: within a thread, its live ones; else all, archived
   * (and, in SQL, expired) ones too (left to the caller, which reads the memories it keeps and drops them then).
   */
  bm25(terms: readonly WeightedTerm[], threadId?: string): Promise<Scores<K>>;
  /** Σ tf of each term of these memories (the live ones), leaving out `known`. */
  termCounts(keys: readonly K[], known: readonly string[]): Promise<{ term: string; tf: number }[]>;
  /** For each of these memories that is live and in a thread, the next live memory (by id) of its thread. */
  nextInThread(keys: readonly K[]): Promise<{ from: K; to: K }[]>;
  /** The id of a key's memory: ties are broken by id, as the statements' ORDER BY does. */
  idOf(key: K): string;
  /**
   * Keeps each key one memory's until the returned function is called: a search holds its keys across awaits,
   * while writes may take memories out and put others in.
   */
  hold(): () => void;
}

/** One pass of BM25 for terms weighted 1 (the query's) or FEEDBACK_WEIGHT; a term no memory holds scores nothing. */
async function bm25<K>(source: TermSource<K>, weights: ReadonlyMap<string, number>, threadId?: string): Promise<Scores<K>> {
  const stats = await source.stats([...weights.keys()]);
  const terms = [...weights]
    .filter(([term]) => (stats.df.get(term) ?? 0) > 0)
    .map(([term, weight]) => ({ term, weight: weight * idf(stats, term) }));
  return terms.length ? source.bm25(terms, threadId) : new Map();
}

/** The most telling terms (Σ tf·idf) of some memories, leaving out `known`. */
async function feedbackTerms<K>(source: TermSource<K>, keys: K[], known: string[]): Promise<string[]> {
  const counts = await source.termCounts(keys, known);
  const corpus = await source.stats(counts.map((row) => row.term));
  return counts
    .map((row) => ({ term: row.term, weight: row.tf * idf(corpus, row.term) }))
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1))
    .slice(0, FEEDBACK_TERMS)
    .map((row) => row.term);
}

/** Gives the next live memory of the same thread a share of each of these memories' scores, in place. */
async function addThreadContext<K>(source: TermSource<K>, scores: Scores<K>): Promise<void> {
  const from = top(source, scores, CONTEXT_FROM);
  if (from.length === 0) return;
  // the shares of the scores before any is added: a memory may be both one that gives and one that gets
  const shares = (await source.nextInThread(from)).map(({ from: key, to }) => ({ to, share: CONTEXT_WEIGHT * scores.get(key)! }));
  for (const { to, share } of shares) scores.set(to, (scores.get(to) ?? 0) + share);
}

const top = <K>(source: TermSource<K>, scores: Scores<K>, n: number): K[] => best(source, scores, n).keys.slice(0, n);

/**
 * The keys and scores of the n best, and of all tied with the n-th, best first (equal scores by id): what a sort
 * of them all begins with, without sorting thousands to keep a hundred.
 */
function best<K>(source: TermSource<K>, scores: Scores<K>, n: number): { keys: K[]; scores: number[] } {
  const keys: K[] = [];
  const values = new Float64Array(scores.size);
  scores.forEach((value, key) => (values[keys.push(key) - 1] = value));
  const threshold = values.length > n ? nthLargest(values.slice(), n) : -Infinity;
  const kept: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i]! >= threshold) kept.push(i);
  kept.sort((a, b) => values[b]! - values[a]! || (source.idOf(keys[a]!) < source.idOf(keys[b]!) ? -1 : 1));
  return { keys: kept.map((i) => keys[i]!), scores: kept.map((i) => values[i]!) };
}

/** Ranks by score; equal scores share the average of their positions, so no arbitrary order decides. */
export function averageRanks<K>(source: TermSource<K>, scores: Scores<K>, limit: number): LexicalHit[] {
  const sorted = best(source, scores, limit);
  const hits: LexicalHit[] = [];
  const length = sorted.keys.length;
  for (let i = 0; i < length && i < limit; ) {
    let j = i;
    while (j + 1 < length && sorted.scores[j + 1] === sorted.scores[i]) j++;
    const rank = (i + 1 + (j + 1)) / 2;
    for (let k = i; k <= j && k < limit; k++) hits.push({ id: source.idOf(sorted.keys[k]!), score: sorted.scores[k]!, rank });
    i = j + 1;
  }
  return hits;
}

/**
 * Lexical search for recall: BM25, widened by pseudo-relevance feedback, with thread context; the best
 * `limit` of the user's live memories (of one thread, when given).
 */
export async function searchLexical<K>(source: TermSource<K>, query: string, limit: number, threadId?: string): Promise<LexicalHit[]> {
  const terms = [...new Set(tokenize(query))];
  const release = source.hold();
  try {
    const scores = await bm25(source, new Map(terms.map((term) => [term, 1])), threadId);
    if (scores.size === 0) return [];
    const feedback = await feedbackTerms(source, top(source, scores, FEEDBACK_DOCS), terms);
    const expanded = await bm25(source, new Map(feedback.map((term) => [term, FEEDBACK_WEIGHT])), threadId);
    for (const [key, score] of expanded) scores.set(key, (scores.get(key) ?? 0) + score);
    await addThreadContext(source, scores);
    return averageRanks(source, scores, limit);
  } finally {
    release();
  }
}

export interface WordMatches {
  hits: { id: string; score: number }[];
  /**
   * What a memory holding every term of the query once would score: Σ idf over the query's terms, a term no
   * memory holds counting at its full idf. Search divides by it, so that a memory matching one common word of a
   * long question scores a small share of 1, and one holding the query's only word about 1.
   */
  weight: number;
}

/** Makes the terms of memories that have none from the current tokenizer (older data, a new tokenizer). */
export async function backfillTerms(db: Database, logger: Logger): Promise<number> {
  let total = 0;
  for (;;) {
    const memories = await db.sql.query<TextOf>(
      `SELECT id, user_id AS "userId", content FROM memories
        WHERE lexical_version IS DISTINCT FROM $1 ORDER BY id LIMIT $2`,
      [LEXICAL_VERSION, BACKFILL_BATCH],
    );
    if (memories.length === 0) break;
    await db.sql.transaction((sql) => rewriteTerms(sql, memories));
    total += memories.length;
  }
  if (total > 0) logger.info({ memories: total }, "built the lexical index of memories that had none");
  return total;
}
