import type { Database } from "../db/database.ts";
import { unexpiredSql } from "./expiry.ts";
import { K1, SCORED, type Scores, type TermSource, type WeightedTerm } from "./lexical.ts";
import type { CorpusStats, TermStats } from "./term-stats.ts";

/** Recall's BM25 over memory_terms in the database: what PostgreSQL runs, and the embedded database until term-index.ts has a copy. */
export class SqlTerms implements TermSource<string> {
  constructor(
    private readonly db: Database,
    private readonly counts: TermStats,
    private readonly userId: string,
  ) {}

  stats(terms: readonly string[]): Promise<CorpusStats> {
    return this.counts.of(this.userId, terms);
  }

  async bm25(terms: readonly WeightedTerm[], threadId?: string): Promise<Scores<string>> {
    const params: unknown[] = [this.userId, terms.map((t) => t.term), terms.map((t) => t.weight), K1, SCORED];
    const scored = `WITH q AS (SELECT * FROM unnest($2::text[], $3::float8[]) AS q(term, weight)),
          scored AS (
            SELECT t.memory_id, sum(q.weight * t.tf * ($4::float8 + 1) / (t.tf + $4::float8)) AS score
              FROM memory_terms t JOIN q USING (term)
             WHERE t.user_id = $1::uuid
             GROUP BY t.memory_id)`;
    // over all memories, archived ones (few) are left to the caller, which reads the memories it keeps and drops
    // them then: looking each scored memory up here cost a third of a recall; within a thread every match must be
    // looked up, as most of the best lie in other threads
    const rows = await this.db.sql.query<{ id: string; score: number }>(
      threadId === undefined
        ? `${scored} SELECT memory_id AS id, score FROM scored ORDER BY score DESC LIMIT $5`
        : `${scored} SELECT s.memory_id AS id, s.score FROM scored s JOIN memories m ON m.id = s.memory_id
            WHERE NOT m.is_archived AND ${unexpiredSql("m")} AND m.thread_id = $${params.push(threadId)}::uuid
            ORDER BY s.score DESC LIMIT $5`,
      params,
    );
    return new Map(rows.map((row) => [row.id, Number(row.score)]));
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
