import type { Sql } from "../db/database.ts";
import { filterConditions } from "../vectors/sql-filter.ts";
import type { VectorFilter } from "../vectors/vector-index.ts";
import { unexpiredSql } from "./expiry.ts";
import { StatementGroups } from "./statement-groups.ts";

/** One search's read of its hits: their ids in rank order, the filter they must pass, how many of those to keep. */
export interface LiveRead {
  filter: VectorFilter;
  ids: readonly string[];
  keep: number;
  /** What `json_agg` gathers of each row: a select list over `memories`' columns. */
  columns: string;
}

// reads in one statement at most: each adds a subquery over its hits (about a hundred ids)
const MAX_GROUP = 32;

/**
 * The rows of search and recall hits that are still live, read for concurrent searches in one statement.
 * A statement on the embedded database costs a fixed ~1 ms of its thread (protocol, parse, plan) and ~0.01 ms an
 * id, and under recall at concurrency 4 more than half of these reads arrived while another was running: the
 * reads that arrive meanwhile wait for it to end and then go together, each in a subquery of its own
 * (StatementGroups, as single creates are grouped). A read that finds none running goes at once, so a lone search
 * waits for nothing.
 */
export class LiveRows {
  private readonly groups: StatementGroups<LiveRead, string | null>;

  /** `maxInFlight`: statements at once (Infinity: every read goes at once, alone). */
  constructor(
    private readonly sql: Sql,
    maxInFlight: number,
  ) {
    this.groups = new StatementGroups((reads) => this.select(reads), { maxInFlight, maxGroup: MAX_GROUP, gatherTurn: false });
  }

  /** The `json_agg` text of the first `keep` rows of `ids` that pass the filter, in the order of `ids`; null for none. */
  read(read: LiveRead): Promise<string | null> {
    return this.groups.submit(read);
  }

  private async select(reads: readonly LiveRead[]): Promise<(string | null)[]> {
    // Each read's ids by primary key first (MATERIALIZED), then its filter. Given user_id and the ids in one WHERE,
    // PostgreSQL 18 prefers a skip scan of (user_id, created_at, id), which visits every distinct created_at of the
    // user: ~10 ms at 100k batch-created memories against ~0.5 ms for 20 key lookups.
    const params: unknown[] = [];
    const hits: string[] = [];
    const columns = reads.map((read, i) => {
      const ids = `$${params.push([...read.ids])}::uuid[]`;
      hits.push(`hit${i} AS MATERIALIZED (SELECT * FROM memories WHERE id = ANY(${ids}))`);
      const conditions = `${filterConditions(read.filter, params)} AND ${unexpiredSql()}`;
      return `(SELECT json_agg(h)::text FROM (
                 SELECT ${read.columns} FROM hit${i} WHERE ${conditions}
                  ORDER BY array_position(${ids}, id) LIMIT $${params.push(read.keep)}) h) AS r${i}`;
    });
    const [row] = await this.sql.query<Record<string, string | null>>(`WITH ${hits.join(", ")} SELECT ${columns.join(", ")}`, params);
    return reads.map((_, i) => row?.[`r${i}`] ?? null);
  }
}
