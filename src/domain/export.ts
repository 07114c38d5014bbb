import type { Database } from "../db/database.ts";
import type { Memory, Thread } from "../generated/prisma/client.ts";
import { storedToVector, vectorToBytes } from "../vectors/codec.ts";
import { unexpiredSql } from "./expiry.ts";
import type { HistoryService, MemoryVersion } from "./history.ts";
import { MEMORY_COLUMNS } from "./memory-rows.ts";

/** What an export carries beside the records themselves. */
export interface ExportOptions {
  /** Each memory's history (its versions, oldest first). */
  history: boolean;
  /** Each memory's vector and the embedder that made it, so that an import into the same embedder need not embed. */
  embeddings: boolean;
}

/** A stored vector: float32 little-endian bytes, and the id of the embedder that made them (model and dimensions). */
export interface StoredEmbedding {
  embedder: string;
  bytes: Uint8Array;
}

export type ExportItem =
  | { kind: "thread"; thread: Thread }
  | {
      kind: "memory";
      memory: Memory;
      /** Present when asked for. */
      history?: MemoryVersion[];
      /** Present when asked for; null for a memory not embedded yet. */
      embedding?: StoredEmbedding | null;
    };

// rows read at a time: the export holds one page, whatever the user's size
const PAGE_ROWS = 500;

const THREAD_COLUMNS = `id, user_id AS "userId", title, description, metadata, status, created_at AS "createdAt",
  updated_at AS "updatedAt"`;

type MemoryRow = Memory & { embeddingBytes?: Uint8Array | null };

/**
 * A user's threads, then their memories, each oldest first, read a page at a time by keyset (creation time,
 * then id): memory stays flat however many there are, and a record added during the export does not shift the
 * pages (it is exported when it sorts after the page being read).
 */
export class ExportService {
  constructor(
    private readonly db: Database,
    private readonly history: HistoryService,
  ) {}

  async *export(userId: string, options: ExportOptions): AsyncGenerator<ExportItem> {
    for await (const page of this.pages<Thread>("threads", THREAD_COLUMNS, userId)) {
      for (const thread of page) yield { kind: "thread", thread };
    }
    const columns = options.embeddings ? `${MEMORY_COLUMNS}, embedding AS "embeddingBytes"` : MEMORY_COLUMNS;
    // an expired memory is gone for every read, the export's included, though the sweeper may not have deleted it yet
    for await (const page of this.pages<MemoryRow>("memories", columns, userId, `AND ${unexpiredSql()}`)) {
      const versions = options.history ? await this.history.versionsOf(userId, page.map((m) => m.id)) : undefined;
      for (const { embeddingBytes, ...memory } of page) {
        yield {
          kind: "memory",
          memory: { ...memory, embedding: null },
          ...(versions ? { history: versions.get(memory.id) ?? [] } : {}),
          ...(options.embeddings ? { embedding: embeddingOf(memory.embedder, embeddingBytes) } : {}),
        };
      }
    }
  }

  /** The user's rows in `table`, oldest first, PAGE_ROWS a page. */
  private async *pages<Row extends { id: string; createdAt: Date; updatedAt: Date }>(
    table: string,
    columns: string,
    userId: string,
    condition = "",
  ): AsyncGenerator<Row[]> {
    let after: Row | undefined;
    for (;;) {
      const rows = await this.db.sql.query<Row>(
        `SELECT ${columns} FROM ${table}
          WHERE user_id = $1::uuid AND (created_at, id) > ($2::timestamptz, $3::uuid) ${condition}
          ORDER BY created_at, id LIMIT ${PAGE_ROWS}`,
        [userId, after ? new Date(after.createdAt).toISOString() : "-infinity", after?.id ?? "00000000-0000-0000-0000-000000000000"],
      );
      // drivers differ in how they hand back timestamps: Dates for everyone
      yield rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) }));
      if (rows.length < PAGE_ROWS) return;
      after = rows.at(-1);
    }
  }
}

function embeddingOf(embedder: string | null, bytes: Uint8Array | null | undefined): StoredEmbedding | null {
  return embedder && bytes ? { embedder, bytes: vectorToBytes(storedToVector(bytes)) } : null;
}
