import type { Sql } from "../db/database.ts";
import { cosine, storedToVector } from "./codec.ts";
import { filterConditions } from "./sql-filter.ts";
import type { VectorFilter, VectorHit, VectorIndex } from "./vector-index.ts";

const CHUNK = 2000;

interface Row {
  id: string;
  embedding: Uint8Array;
  /** created_at as text, so that the next page starts exactly where this one ended (a Date keeps milliseconds only) */
  at: string;
}

/**
 * No index at all: a search reads the user's stored embeddings and compares each; for PostgreSQL without
 * pgvector and no Qdrant. Writes are no-ops because the embeddings in the memories table are what it searches.
 *
 * Exact, but linear in the user's memories (about 190 ms at 10 000 on PostgreSQL, see bench/README.md), so one
 * user with many memories could make every search cost seconds: a search compares the user's newest
 * `maxRows` memories that match its filter, and no more. Older ones are still found by their words, and a
 * memory that words find gets its vector's similarity all the same (search.ts reads it from the row).
 */
export class ExactIndex implements VectorIndex {
  readonly kind = "exact";

  constructor(
    private readonly sql: Sql,
    private readonly maxRows = Number.POSITIVE_INFINITY,
  ) {}

  searchesWhere(): boolean {
    return true;
  }

  async ensure(): Promise<void> {}
  async upsert(): Promise<void> {}
  async delete(): Promise<void> {}
  async clear(): Promise<void> {}

  async search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    const best: VectorHit[] = [];
    let last: Row | undefined;
    for (let scanned = 0; scanned < this.maxRows; ) {
      const params: unknown[] = [];
      const where = filterConditions(filter, params);
      params.push(embedderId, Math.min(CHUNK, this.maxRows - scanned));
      const n = params.length;
      let after = "";
      if (last) {
        params.push(last.at, last.id);
        after = `AND (created_at, id) < ($${n + 1}::timestamptz, $${n + 2}::uuid)`;
      }
      // newest first, along the (user_id, created_at, id) index that lists read backwards; expired memories (the
      // domain's unexpiredSql, which this layer cannot import) take no place among the best
      const rows = await this.sql.query<Row>(
        `SELECT id, embedding, created_at::text AS at FROM memories
          WHERE ${where} AND (expires_at IS NULL OR expires_at > now()) AND embedder = $${n - 1} ${after}
          ORDER BY created_at DESC, id DESC LIMIT $${n}`,
        params,
      );
      for (const row of rows) keepBest(best, { id: row.id, score: cosine(vector, storedToVector(row.embedding)) }, limit);
      scanned += rows.length;
      if (rows.length < CHUNK) break;
      last = rows[rows.length - 1];
    }
    return best;
  }

  async count(embedderId: string): Promise<number> {
    const [row] = await this.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM memories WHERE embedder = $1",
      [embedderId],
    );
    return row?.n ?? 0;
  }

  async ping(): Promise<void> {
    await this.sql.query("SELECT 1");
  }

  async close(): Promise<void> {}
}

/** Keeps `best` sorted by score, highest first, and at most `limit` long. */
function keepBest(best: VectorHit[], hit: VectorHit, limit: number): void {
  if (best.length === limit && hit.score <= best[best.length - 1]!.score) return;
  let i = best.length;
  while (i > 0 && best[i - 1]!.score < hit.score) i--;
  best.splice(i, 0, hit);
  if (best.length > limit) best.pop();
}
