import type { Database } from "../db/database.ts";
import type { ListTotals } from "./list-totals.ts";

/** What BM25's idf needs: how many memories the user has, and how many of them hold each term. */
export interface CorpusStats {
  n: number;
  df: ReadonlyMap<string, number>;
}

// a count from another process (PostgreSQL) is trusted this long; this process' own writes end it at once
const TTL_MS = 30_000;
const MAX_ENTRIES = 100_000;
// a count this large is steady: a write moves it by a small share (a batch by a few percent at most), so it is kept
// through the user's own writes too (for TTL_MS), not counted again after each: a recall each turn of a
// conversation that writes each turn read a common term's tens of thousands of postings every turn. Smaller
// counts, a term's first memory among them, are cheap to count again and must be
const STEADY_COUNT = 10_000;

interface Entry {
  value: number;
  generation: number;
  at: number;
}

/**
 * The user's memory count and the document frequencies of terms, kept between writes, for recall's BM25 in SQL
 * (sql-terms.ts: on PostgreSQL, and on the embedded database until the user's terms are copied into the process).
 * Recall asks for them three times a question (the query's terms, then the feedback candidates, which are the
 * distinct terms of the best memories, then the feedback terms), and counting them anew would read tens of
 * thousands of postings for common terms, every time. A write to the user's
 * memories in this process makes its counts stale at once (ListTotals' generation), but for the steady ones
 * (STEADY_COUNT); writes of other processes show within TTL_MS, and idf moves little with a few memories more
 * or less.
 */
export class TermStats {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Database,
    private readonly totals: ListTotals,
    /** STEADY_COUNT, or a test's own */
    private readonly steadyCount = STEADY_COUNT,
  ) {}

  async of(userId: string, terms: readonly string[]): Promise<CorpusStats> {
    const generation = this.totals.generation(userId);
    const now = Date.now();
    const fresh = (key: string) => {
      const entry = this.entries.get(key);
      if (!entry || now - entry.at >= TTL_MS) return undefined;
      return entry.generation === generation || entry.value >= this.steadyCount ? entry.value : undefined;
    };
    const nKey = `${userId}\n`;
    let n = fresh(nKey);
    const df = new Map<string, number>();
    const missing: string[] = [];
    for (const term of new Set(terms)) {
      const known = fresh(`${userId}\n${term}`);
      if (known === undefined) missing.push(term);
      else df.set(term, known);
    }
    const [counted, rows] = await Promise.all([
      n === undefined ? this.countMemories(userId) : undefined,
      missing.length ? this.countPostings(userId, missing) : [],
    ]);
    if (this.entries.size > MAX_ENTRIES) this.entries.clear();
    if (counted !== undefined) {
      n = counted;
      this.entries.set(nKey, { value: n, generation, at: now });
    }
    const counts = new Map(rows.map((row) => [row.term, row.df]));
    for (const term of missing) {
      const value = counts.get(term) ?? 0;
      df.set(term, value);
      this.entries.set(`${userId}\n${term}`, { value, generation, at: now });
    }
    return { n: n!, df };
  }

  private async countMemories(userId: string): Promise<number> {
    const [row] = await this.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM memories WHERE user_id = $1::uuid", [userId]);
    return row?.n ?? 0;
  }

  private countPostings(userId: string, terms: string[]): Promise<{ term: string; df: number }[]> {
    return this.db.sql.query<{ term: string; df: number }>(
      `SELECT term, count(*)::int AS df FROM memory_terms WHERE user_id = $1::uuid AND term = ANY($2::text[]) GROUP BY term`,
      [userId, terms],
    );
  }
}

/** BM25's idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)). */
export const idf = (stats: CorpusStats, term: string): number => {
  const df = stats.df.get(term) ?? 0;
  return Math.log(1 + (stats.n - df + 0.5) / (df + 0.5));
};
