import type { Database } from "../db/database.ts";
import type { VectorPoint } from "../vectors/vector-index.ts";
import type { InsertedMemory } from "./memory-rows.ts";

/** A memory as the vector index needs it: a point's fields, and what its vector and version come from. */
export interface IndexRow extends Omit<VectorPoint, "vector" | "version"> {
  content: string;
  embedding: Uint8Array | null;
  embedder: string | null;
  updatedAt: Date;
}

// the columns the index needs, in IndexRow's names; raw SQL because Prisma costs ~0.5 ms a query on PGlite
// (and decodes bytea slowly), and this runs after every write
const INDEX_COLUMNS = `m.id, m.user_id AS "userId", m.content, m.embedding, m.embedder, m.type, m.tags,
  m.thread_id AS "threadId", m.is_archived AS "isArchived", m.created_at AS "createdAt", m.metadata, m.updated_at AS "updatedAt"`;

/** The memories with these ids as they are now (the missing ones are deleted). */
export async function loadIndexRows(db: Database, ids: readonly string[]): Promise<IndexRow[]> {
  if (ids.length === 0) return [];
  return db.sql.query<IndexRow>(`SELECT ${INDEX_COLUMNS} FROM memories m WHERE m.id = ANY($1::uuid[])`, [ids]);
}

/** Memories a writer has just inserted, as inserted, each with the index task queued with it (if any). */
export interface FreshRow {
  taskId: string | null;
  row: IndexRow;
}

export type FreshRows = ReadonlyMap<string, FreshRow>;

/** A page of every memory, in id order, for rebuilds. */
export function pageIndexRows(db: Database, after: string | undefined, limit: number): Promise<IndexRow[]> {
  return db.sql.query<IndexRow>(
    `SELECT ${INDEX_COLUMNS} FROM memories m WHERE m.id > $1::uuid ORDER BY m.id LIMIT $2`,
    [after ?? "00000000-0000-0000-0000-000000000000", limit],
  );
}


/** What the indexer needs of memories just inserted, so that it need not read them back. */
export function freshRows(inserted: readonly InsertedMemory[]): FreshRows {
  return new Map(
    inserted.map(({ memory: m, taskId, embedding }) => [
      m.id,
      {
        taskId,
        row: {
          id: m.id,
          userId: m.userId,
          content: m.content,
          embedding,
          embedder: m.embedder,
          type: m.type,
          tags: m.tags,
          threadId: m.threadId,
          isArchived: m.isArchived,
          createdAt: m.createdAt,
          metadata: m.metadata,
          updatedAt: m.updatedAt,
        },
      },
    ]),
  );
}
