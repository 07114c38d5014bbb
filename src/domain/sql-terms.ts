import type { Database, Sql } from "../db/database.ts";
import { unexpiredSql } from "./expiry.ts";
import { tokenize } from "../text/tokenize.ts";
import { K1, SCORED, type Scores, type TermSource, type WeightedTerm, type WordMatches } from "./lexical.ts";
import { idf, type CorpusStats, type TermStats } from "./term-stats.ts";

/**
 * The postings BM25 in SQL reads in all, the query's rarest terms first: the terms past it are "common", their
 * postings not read, their scores only added to the memories that the rarer terms found (their best
 * CANDIDATES_PER_HIT × limit). Reading a posting costs a row read (5-15 µs on the embedded database): the common
 * words of a million-memory account made a statement of 1-2 s, which the embedded database, one statement at a
 * time, made every user wait out (outside probe). Within the bound, BM25 is exact; past it, a memory that holds
 * only common terms of the query is not found by its words (the vector side still finds it by meaning), and a
 * query whose rarest term alone is past the bound finds nothing by words. Users' copies of their terms in this
 * process (term-index.ts) score every term.
 */
export const MAX_POSTINGS_READ = 20_000;
/** The memories, per hit asked for, that the query's other terms find for the common ones to add to. */
const CANDIDATES_PER_HIT = 2;

export interface ScoredRow {
  id: string;
  score: number;
}

export interface Bm25Query {
  userId: string;
  terms: readonly WeightedTerm[];
  /** How many of the user's memories hold each term (TermStats). */
  df: ReadonlyMap<string, number>;
  limit: number;
  /** Only the live memories of this thread, before the cut. */
  threadId?: string;
  /** Archived and expired memories dropped after the cut (search's way: a few of the best may be missing). */
  liveAfterCut?: boolean;
  maxPostingsRead?: number;
}

/**
 * Σ weight·tf·(k1 + 1)/(tf + k1) of the user's best `limit` memories, best first, in one statement: over every
 * posting of the rarest terms, up to `maxPostingsRead` postings in all, and for the memories they find, the
 * common terms' postings too, looked up by memory (the key of memory_terms).
 */
export async function bm25Rows(sql: Sql, q: Bm25Query): Promise<ScoredRow[]> {
  const bound = q.maxPostingsRead ?? MAX_POSTINGS_READ;
  const df = (t: WeightedTerm) => q.df.get(t.term) ?? 0;
  const rare: WeightedTerm[] = [];
  const common: WeightedTerm[] = [];
  let read = 0;
  for (const term of [...q.terms].sort((a, b) => df(a) - df(b))) {
    if (common.length === 0 && read + df(term) <= bound) {
      read += df(term);
      rare.push(term);
    } else common.push(term);
  }
  if (rare.length === 0) return [];
  const params: unknown[] = [q.userId, rare.map((t) => t.term), rare.map((t) => t.weight), K1, q.limit];
  const score = (alias: string) => `${alias}.weight * t.tf * ($4::float8 + 1) / (t.tf + $4::float8)`;
  // over all memories, archived ones (few) are left to the caller or to liveAfterCut, which reads only those it
  // keeps: looking each scored memory up here cost a third of a recall; within a thread every match must be looked
  // up, as most of the best lie in other threads
  let scored = `SELECT t.memory_id AS id, sum(${score("r")}) AS score
                  FROM memory_terms t JOIN r USING (term) WHERE t.user_id = $1::uuid GROUP BY t.memory_id`;
  if (q.threadId !== undefined) {
    scored = `SELECT s.id, s.score FROM (${scored}) s JOIN memories m ON m.id = s.id
               WHERE NOT m.is_archived AND ${unexpiredSql("m")} AND m.thread_id = $${params.push(q.threadId)}::uuid`;
  }
  let ctes = `r AS (SELECT * FROM unnest($2::text[], $3::float8[]) AS r(term, weight))`;
  if (common.length > 0) {
    const candidates = `$${params.push(q.limit * CANDIDATES_PER_HIT)}`;
    const terms = `$${params.push(common.map((t) => t.term))}::text[]`;
    const weights = `$${params.push(common.map((t) => t.weight))}::float8[]`;
    ctes += `, c AS (SELECT * FROM unnest(${terms}, ${weights}) AS c(term, weight)),
      found AS (SELECT id, score FROM (${scored}) s ORDER BY score DESC, id LIMIT ${candidates})`;
    // for each memory found, by the key (memory_id, term): as a join, even a lateral one, PostgreSQL read every
    // posting of the common terms (68 000 for a query at 300 000 memories, 0.5 s) to keep those of the memories found
    const added = `SELECT sum(${score("c")}) FROM memory_terms t JOIN c USING (term) WHERE t.memory_id = f.id AND t.term = ANY(${terms})`;
    scored = `SELECT f.id, f.score + coalesce((${added}), 0) AS score FROM found f`;
  }
  const best = `SELECT id, score FROM (${scored}) s ORDER BY score DESC, id LIMIT $5`;
  const rows = await sql.query<ScoredRow>(
    q.liveAfterCut
      ? `WITH ${ctes} SELECT b.id, b.score FROM (${best}) b JOIN memories m ON m.id = b.id
          WHERE NOT m.is_archived AND ${unexpiredSql("m")} ORDER BY b.score DESC, b.id`
      : `WITH ${ctes} ${best}`,
    params,
  );
  return rows.map((row) => ({ id: row.id, score: Number(row.score) }));
}

/**
 * Plain BM25 for search: no feedback terms (they would spread a question's chance word to the memories that hold
 * it) and no thread context. Archived memories are left out of the best `limit` rather than before (sparing a
 * lookup of every matching memory), so a few may be missing. On the embedded database the user's copy of their
 * terms answers alike (UserTerms.searchWords).
 */
export async function searchWords(
  db: Database,
  counts: TermStats,
  userId: string,
  query: string,
  limit: number,
  maxPostingsRead?: number,
): Promise<WordMatches> {
  const words = [...new Set(tokenize(query))];
  if (words.length === 0) return { hits: [], weight: 0 };
  const stats = await counts.of(userId, words);
  const terms = words.filter((term) => (stats.df.get(term) ?? 0) > 0).map((term) => ({ term, weight: idf(stats, term) }));
  const weight = words.reduce((sum, term) => sum + idf(stats, term), 0);
  const hits = terms.length ? await bm25Rows(db.sql, { userId, terms, df: stats.df, limit, liveAfterCut: true, maxPostingsRead }) : [];
  return { weight, hits };
}

/** Recall's BM25 over memory_terms in the database: what PostgreSQL runs, and the embedded database until term-index.ts has a copy. */
export class SqlTerms implements TermSource<string> {
  constructor(
    private readonly db: Database,
    private readonly counts: TermStats,
    private readonly userId: string,
    /** MAX_POSTINGS_READ, or a test's own */
    private readonly maxPostingsRead = MAX_POSTINGS_READ,
  ) {}

  stats(terms: readonly string[]): Promise<CorpusStats> {
    return this.counts.of(this.userId, terms);
  }

  async bm25(terms: readonly WeightedTerm[], threadId?: string): Promise<Scores<string>> {
    // the caller has just counted these (stats): TermStats answers from what it keeps
    const { df } = await this.counts.of(this.userId, terms.map((t) => t.term));
    const rows = await bm25Rows(this.db.sql, { userId: this.userId, terms, df, limit: SCORED, threadId, maxPostingsRead: this.maxPostingsRead });
    return new Map(rows.map((row) => [row.id, row.score]));
  }

  termCounts(ids: readonly string[], known: readonly string[]): Promise<{ term: string; tf: number }[]> {
    // by memory alone (the ids are the user's, from bm25): with the user in the condition the planner may walk the
    // user's every posting along the primary key instead of these few memories' terms
    return this.db.sql.query<{ term: string; tf: number }>(
      `SELECT term, sum(tf)::int AS tf FROM memory_terms t JOIN memories m ON m.id = t.memory_id
        WHERE t.memory_id = ANY($1::uuid[]) AND NOT m.is_archived AND ${unexpiredSql("m")} AND NOT term = ANY($2::text[])
        GROUP BY term`,
      [ids, known],
    );
  }

  idOf(id: string): string {
    return id;
  }

  /** Ids are the memories' own: nothing to hold. */
  hold(): () => void {
    return () => undefined;
  }

  nextInThread(ids: readonly string[]): Promise<{ from: string; to: string }[]> {
    return this.db.sql.query<{ from: string; to: string }>(
      `SELECT m.id AS "from", nxt.id AS "to" FROM memories m
         CROSS JOIN LATERAL (SELECT n.id FROM memories n
                              WHERE n.thread_id = m.thread_id AND n.id > m.id AND NOT n.is_archived AND ${unexpiredSql("n")}
                              ORDER BY n.id LIMIT 1) nxt
        WHERE m.id = ANY($1::uuid[]) AND m.thread_id IS NOT NULL AND NOT m.is_archived AND ${unexpiredSql("m")}`,
      [ids],
    );
  }
}
