import type { Sql } from "../db/database.ts";
import { bytesToVector, cosine } from "./codec.ts";
import { filterConditions } from "./sql-filter.ts";
import type { VectorFilter, VectorHit, VectorIndex } from "./vector-index.ts";

const CHUNK = 2000;

/**
 * No index at all: every search reads the user's stored embeddings and compares each. Exact, and linear in
 * the user's memories; for PostgreSQL without pgvector and no Qdrant. Writes are no-ops because the
 * embeddings in the memories table are what it searches.
 */
export class ExactIndex implements VectorIndex {
  readonly kind = "exact";

  constructor(private readonly sql: Sql) {}

  async ensure(): Promise<void> {}
  async upsert(): Promise<void> {}
  async delete(): Promise<void> {}
  async clear(): Promise<void> {}

  async search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    const best: VectorHit[] = [];
    let after = "00000000-0000-0000-0000-000000000000";
    for (;;) {
      const params: unknown[] = [];
      const where = filterConditions(filter, params);
      params.push(embedderId, after, CHUNK);
      const n = params.length;
      const rows = await this.sql.query<{ id: string; embedding: Uint8Array }>(
        `SELECT id, embedding FROM memories WHERE ${where} AND embedder = $${n - 2} AND id > $${n - 1}::uuid
          ORDER BY id LIMIT $${n}`,
        params,
      );
      for (const row of rows) keepBest(best, { id: row.id, score: cosine(vector, bytesToVector(row.embedding)) }, limit);
      if (rows.length < CHUNK) break;
      after = rows[rows.length - 1]!.id;
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
