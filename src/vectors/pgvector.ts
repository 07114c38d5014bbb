import { createHash } from "node:crypto";
import type { Sql } from "../db/database.ts";
import { PGVECTOR_SESSION_SETTINGS } from "../db/pgvector-settings.ts";
import { vectorLiteral } from "./codec.ts";
import { filterSql } from "./filter-sql.ts";
import { filterConditions } from "./sql-filter.ts";
import { filterFields, type VectorFilter, type VectorHit, type VectorIndex, type VectorPoint } from "./vector-index.ts";

// HNSW indexes vector up to 2,000 dimensions and halfvec up to 4,000
const MAX_VECTOR_DIMS = 2000;
const MAX_HALFVEC_DIMS = 4000;

/** pgvector inside the same PostgreSQL (embedded PGlite or a server): one table per embedder, HNSW, cosine. */
export class PgVectorIndex implements VectorIndex {
  readonly kind = "pgvector";
  private readonly tables = new Map<string, { name: string; cast: string }>();

  private constructor(private readonly sql: Sql) {}

  /** The index, or undefined when the database has no pgvector extension. */
  static async open(sql: Sql, perSession: boolean): Promise<PgVectorIndex | undefined> {
    try {
      await sql.exec("CREATE EXTENSION IF NOT EXISTS vector");
    } catch {
      return undefined;
    }
    await sql.exec(`CREATE SCHEMA IF NOT EXISTS vector_index;
      CREATE TABLE IF NOT EXISTS vector_index.embedders (
        id text PRIMARY KEY, table_name text NOT NULL, dimensions int NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
    // one long session (PGlite) takes the settings here; a pool sets them on every connection it opens
    if (perSession) {
      for (const [name, value] of Object.entries(PGVECTOR_SESSION_SETTINGS)) await sql.exec(`SET ${name} = '${value}'`);
    }
    return new PgVectorIndex(sql);
  }

  private table(embedderId: string): { name: string; cast: string } {
    const table = this.tables.get(embedderId);
    if (!table) throw new Error(`vector index for ${embedderId} is not ensured`);
    return table;
  }

  async ensure(embedderId: string, dimensions: number): Promise<void> {
    if (this.tables.has(embedderId)) return;
    const bare = `e_${createHash("sha256").update(embedderId).digest("hex").slice(0, 16)}`;
    const name = `vector_index.${bare}`;
    const type = dimensions <= MAX_VECTOR_DIMS ? "vector" : "halfvec";
    await this.sql.exec(`CREATE TABLE IF NOT EXISTS ${name} (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        type text,
        tags text[] NOT NULL DEFAULT '{}',
        thread_id uuid,
        is_archived boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        embedding ${type}(${dimensions}) NOT NULL);
      CREATE INDEX IF NOT EXISTS ${bare}_user ON ${name} (user_id)`);
    if (dimensions <= MAX_HALFVEC_DIMS) {
      await this.sql.exec(
        `CREATE INDEX IF NOT EXISTS ${bare}_hnsw ON ${name} USING hnsw (embedding ${type}_cosine_ops)`,
      );
    }
    await this.sql.query(
      `INSERT INTO vector_index.embedders (id, table_name, dimensions) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
      [embedderId, name, dimensions],
    );
    this.tables.set(embedderId, { name, cast: `${type}(${dimensions})` });
  }

  async upsert(embedderId: string, points: readonly VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    const { name, cast } = this.table(embedderId);
    const rows = points.map((p) => ({ id: p.id, ...filterFields(p), embedding: vectorLiteral(p.vector) }));
    await this.sql.query(
      `INSERT INTO ${name} (id, user_id, type, tags, thread_id, is_archived, created_at, embedding)
       SELECT id, user_id, type, tags, thread_id, is_archived, created_at, embedding::${cast}
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, user_id uuid, type text, tags text[], thread_id uuid,
                                                 is_archived boolean, created_at timestamptz, embedding text)
       ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, type = excluded.type, tags = excluded.tags,
         thread_id = excluded.thread_id, is_archived = excluded.is_archived, created_at = excluded.created_at,
         embedding = excluded.embedding`,
      [JSON.stringify(rows)],
    );
  }

  async delete(embedderId: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.query(`DELETE FROM ${this.table(embedderId).name} WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** Metadata lives in the memories table, beside this one: a search with conditions on it joins the two. */
  searchesWhere(): boolean {
    return true;
  }

  async search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    const { name, cast } = this.table(embedderId);
    const params: unknown[] = [vectorLiteral(vector)];
    const { where: clause, ...copied } = filter;
    let where = filterConditions(copied, params, "v");
    if (clause) where += ` AND ${filterSql(clause, params, "m")}`;
    params.push(limit);
    // with a join, the HNSW scan goes on (hnsw.iterative_scan) until `limit` rows pass the memories' conditions
    const rows = await this.sql.query<{ id: string; distance: number }>(
      `SELECT v.id, v.embedding <=> $1::${cast} AS distance FROM ${name} v
         ${clause ? "JOIN memories m ON m.id = v.id" : ""}
        WHERE ${where} ORDER BY v.embedding <=> $1::${cast} LIMIT $${params.length}`,
      params,
    );
    return rows.map((row) => ({ id: row.id, score: 1 - Number(row.distance) })).sort((a, b) => b.score - a.score);
  }

  async clear(embedderId: string): Promise<void> {
    await this.sql.exec(`TRUNCATE ${this.table(embedderId).name}`);
  }

  async count(embedderId: string): Promise<number> {
    const [row] = await this.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table(embedderId).name}`);
    return row?.n ?? 0;
  }

  async ping(): Promise<void> {
    await this.sql.query("SELECT 1");
  }

  async close(): Promise<void> {}
}
