import type { Database } from "../db/database.ts";
import { packBytes, unpackSql } from "../db/packed-bytes.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import type { Logger } from "../logger.ts";
import { bytesToVector, vectorToBytes } from "../vectors/codec.ts";
import { backfillTerms } from "./lexical.ts";
import { freshRows, type InsertedMemory } from "./memory-rows.ts";
import type { VectorIndex, VectorPoint } from "../vectors/vector-index.ts";

const BATCH = 500;
const REBUILD_PAGE = 256;
const POLL_MS = 2_000;
const MAX_BACKOFF_S = 300;

export interface RebuildProgress {
  done: number;
  total: number;
  /** Memories that had no vector of the current embedder and were embedded. */
  embedded: number;
}

interface Task {
  /** bigint in the database; drivers return it as a string */
  id: string | bigint;
  memoryId: string;
}

interface IndexRow {
  id: string;
  userId: string;
  content: string;
  embedding: Uint8Array | null;
  embedder: string | null;
  type: string | null;
  tags: string[];
  threadId: string | null;
  isArchived: boolean;
  createdAt: Date;
  updatedAt: Date;
}

// the columns the index needs, in IndexRow's names; raw SQL because Prisma costs ~0.5 ms a query on PGlite
// (and decodes bytea slowly), and this runs after every write
const INDEX_COLUMNS = `m.id, m.user_id AS "userId", m.content, m.embedding, m.embedder, m.type, m.tags,
  m.thread_id AS "threadId", m.is_archived AS "isArchived", m.created_at AS "createdAt", m.updated_at AS "updatedAt"`;

/** The memories with these ids as they are now (the missing ones are deleted). */
export async function loadIndexRows(db: Database, ids: readonly string[]): Promise<IndexRow[]> {
  if (ids.length === 0) return [];
  return db.sql.query<IndexRow>(`SELECT ${INDEX_COLUMNS} FROM memories m WHERE m.id = ANY($1::uuid[])`, [ids]);
}

/** Memories a writer has just inserted, as inserted, each with the index task queued with it. */
export type FreshRows = ReadonlyMap<string, { taskId: string; row: IndexRow }>;

/** A page of every memory, in id order, for rebuilds. */
export function pageIndexRows(db: Database, after: string | undefined, limit: number): Promise<IndexRow[]> {
  return db.sql.query<IndexRow>(
    `SELECT ${INDEX_COLUMNS} FROM memories m WHERE m.id > $1::uuid ORDER BY m.id LIMIT $2`,
    [after ?? "00000000-0000-0000-0000-000000000000", limit],
  );
}

/**
 * Keeps the vector index in step with the database through the `index_tasks` outbox. A memory write queues a
 * task in its own transaction, so a write the database accepted is never lost to a failed index write: the
 * writer applies its tasks at once (so that a search right after sees the change), and whatever fails stays
 * queued, retried with backoff in the background and reconciled at start-up.
 *
 * A task says only "this memory changed": applying it reads the memory as it is now, so tasks can be
 * applied twice or late without harm. In one process, applications run one at a time; across processes
 * (PostgreSQL), a memory rewritten while it was being applied is queued again.
 */
export class Indexer {
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    readonly embedder: Embedder,
    readonly index: VectorIndex,
    private readonly logger: Logger,
  ) {}

  /** Vectors to store with new content, or null when the embedder fails (the outbox embeds later). */
  async embedForWrite(texts: readonly string[]): Promise<Float32Array[] | null> {
    try {
      return await this.embedder.embed(texts);
    } catch (error) {
      this.logger.warn({ err: error, embedder: this.embedder.id }, "embedding failed; the memory is stored and will be embedded later");
      return null;
    }
  }

  /** Columns of a memory for vectors made by `embedForWrite`. */
  embeddingColumns(vector: Float32Array | undefined): { embedding: Uint8Array<ArrayBuffer> | null; embedder: string | null } {
    return vector ? { embedding: vectorToBytes(vector), embedder: this.embedder.id } : { embedding: null, embedder: null };
  }

  /**
   * Runs `insert` (new memories and their tasks, in one transaction) and indexes what it inserted from the rows
   * as inserted, without reading them back (for a batch, ~3 ms of reading its embeddings). On the embedded
   * database the insert runs in this queue, so no index work comes between it and its own and its tasks are
   * known (~1.5 ms a batch); across processes they are looked up, see `flush`.
   */
  async insertAndIndex(insert: () => Promise<InsertedMemory[]>): Promise<InsertedMemory[]> {
    if (!this.db.singleWriter) {
      const inserted = await insert();
      await this.flush(inserted.map(({ memory }) => memory.id), freshRows(inserted));
      return inserted;
    }
    return this.serially(async () => {
      const inserted = await insert();
      await this.apply(inserted.map(({ taskId, memory }) => ({ id: taskId, memoryId: memory.id })), freshRows(inserted));
      return inserted;
    });
  }

  /**
   * Applies the tasks queued for these memories, after the transaction that queued them committed. `fresh`:
   * memories that transaction inserted, indexed as inserted while the task queued with them is their only
   * one (so nothing has changed them since), else read as they are now.
   */
  flush(memoryIds: readonly string[], fresh?: FreshRows): Promise<void> {
    if (memoryIds.length === 0) return Promise.resolve();
    return this.serially(async () => {
      const tasks = await this.db.sql.query<Task>(
        `SELECT id, memory_id AS "memoryId" FROM index_tasks WHERE memory_id = ANY($1::uuid[])`,
        [memoryIds],
      );
      await this.apply(tasks, fresh);
    });
  }

  /** Applies the tasks that are due; returns how many there were. */
  processDue(): Promise<number> {
    return this.serially(async () => {
      const tasks = await this.db.sql.query<Task>(
        `SELECT id, memory_id AS "memoryId" FROM index_tasks WHERE available_at <= now() ORDER BY id LIMIT $1`,
        [BATCH],
      );
      await this.apply(tasks);
      return tasks.length;
    });
  }

  /**
   * Builds missing lexical terms, catches an index that keeps its own files up with the database (it may have
   * missed writes in a crash), then works through every due task and keeps polling for retries.
   */
  start(): void {
    const loop = async () => {
      try {
        let processed = 0;
        for (let n = await this.processDue(); n > 0 && !this.stopped; n = await this.processDue()) processed += n;
        if (processed > 0) this.logger.info({ tasks: processed }, "applied queued index work");
      } catch (error) {
        this.logger.error({ err: error }, "index work failed");
      }
      if (!this.stopped) this.timer = setTimeout(() => (this.running = loop()), POLL_MS).unref();
    };
    const prepare = async () => {
      try {
        await backfillTerms(this.db, this.logger);
        await this.reconcile();
      } catch (error) {
        this.logger.error({ err: error }, "could not bring the search indexes up to date with the database");
      }
    };
    this.running = prepare().then(loop);
  }

  private async reconcile(): Promise<void> {
    if (!this.index.reconcile) return;
    const rows = await this.db.sql.query<{ id: string; version: string }>(
      `SELECT id, (extract(epoch FROM updated_at) * 1000)::bigint::text AS version FROM memories WHERE embedder = $1`,
      [this.embedder.id],
    );
    const { stale, extra } = this.index.reconcile(this.embedder.id, new Map(rows.map((r) => [r.id, Number(r.version)])));
    if (extra.length) await this.index.delete(this.embedder.id, extra);
    if (stale.length) await this.db.sql.query(
      "INSERT INTO index_tasks (memory_id, user_id) SELECT id, user_id FROM memories WHERE id = ANY($1::uuid[])",
      [stale],
    );
    if (stale.length || extra.length) {
      this.logger.info({ stale: stale.length, extra: extra.length }, "vector index behind the database: catching up");
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.queue.catch(() => {});
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  private async apply(tasks: Task[], fresh?: FreshRows): Promise<void> {
    if (tasks.length === 0) return;
    const memoryIds = [...new Set(tasks.map((task) => task.memoryId))];
    try {
      const rows = await this.currentRows(tasks, memoryIds, fresh);
      const present = new Set(rows.map((row) => row.id));
      const unembedded = await this.embedMissing(rows);
      await this.upsertRows(rows);
      await this.index.delete(this.embedder.id, memoryIds.filter((id) => !present.has(id)));
      const done = tasks.filter((task) => !unembedded.includes(task.memoryId)).map((task) => String(task.id));
      await this.db.sql.query("DELETE FROM index_tasks WHERE id = ANY($1::bigint[])", [done]);
      if (unembedded.length) await this.retryLater(tasks.filter((t) => unembedded.includes(t.memoryId)), "embedding failed");
      if (!this.db.singleWriter) await this.requeueRewritten(rows);
    } catch (error) {
      this.logger.warn({ err: error, tasks: tasks.length }, "index write failed; will retry");
      await this.retryLater(tasks, error instanceof Error ? error.message : String(error));
    }
  }

  /** The memories of these tasks as they are now: fresh rows where nothing else is queued for them, else read. */
  private async currentRows(tasks: Task[], memoryIds: string[], fresh: FreshRows | undefined): Promise<IndexRow[]> {
    if (!fresh) return loadIndexRows(this.db, memoryIds);
    const taskCount = new Map<string, number>();
    for (const task of tasks) taskCount.set(task.memoryId, (taskCount.get(task.memoryId) ?? 0) + 1);
    const unchanged = (task: Task) => taskCount.get(task.memoryId) === 1 && fresh.get(task.memoryId)?.taskId === String(task.id);
    const known = tasks.filter(unchanged).map((task) => fresh.get(task.memoryId)!.row);
    const read = new Set(known.map((row) => row.id));
    return [...known, ...(await loadIndexRows(this.db, memoryIds.filter((id) => !read.has(id))))];
  }

  /**
   * Rebuilds the index of the current embedder from the database: empties it, then writes every memory, reusing
   * stored vectors and embedding (in batches) only what has no vector of the current embedder. Pages go through
   * the same queue as live writes, so a memory written meanwhile is never left in an older state.
   */
  async rebuild(onProgress: (progress: RebuildProgress) => void = () => {}): Promise<RebuildProgress> {
    await this.serially(() => this.index.clear(this.embedder.id));
    const [{ total }] = (await this.db.sql.query<{ total: number }>("SELECT count(*)::int AS total FROM memories")) as [
      { total: number },
    ];
    const progress: RebuildProgress = { done: 0, total, embedded: 0 };
    onProgress({ ...progress });
    for (let after: string | undefined; ; ) {
      const rows = await this.serially(async () => {
        const page = await pageIndexRows(this.db, after, REBUILD_PAGE);
        const stale = page.filter((row) => !row.embedding || row.embedder !== this.embedder.id);
        if (stale.length) {
          await this.storeEmbeddings(stale, await this.embedder.embed(stale.map((row) => row.content)));
          progress.embedded += stale.length;
        }
        await this.upsertRows(page);
        return page;
      });
      if (rows.length === 0) break;
      progress.done += rows.length;
      onProgress({ ...progress });
      after = rows[rows.length - 1]!.id;
    }
    return progress;
  }

  /** Writes the rows that have a vector of the current embedder to the index. */
  async upsertRows(rows: IndexRow[]): Promise<void> {
    const points = rows.filter((row) => row.embedding && row.embedder === this.embedder.id).map(toPoint);
    await this.index.upsert(this.embedder.id, points);
  }

  /** Embeds rows that have no vector of the current embedder, and stores the vectors; returns the ids it could not. */
  private async embedMissing(rows: IndexRow[]): Promise<string[]> {
    const stale = rows.filter((row) => !row.embedding || row.embedder !== this.embedder.id);
    if (stale.length === 0) return [];
    let vectors: Float32Array[];
    try {
      vectors = await this.embedder.embed(stale.map((row) => row.content));
    } catch (error) {
      this.logger.warn({ err: error, memories: stale.length }, "embedding failed; will retry");
      for (const row of stale) row.embedding = null;
      return stale.map((row) => row.id);
    }
    await this.storeEmbeddings(stale, vectors);
    return [];
  }

  /** Stores vectors made for `rows`; a row rewritten meanwhile keeps its own (newer) vector. */
  async storeEmbeddings(rows: IndexRow[], vectors: Float32Array[]): Promise<void> {
    rows.forEach((row, i) => {
      row.embedding = vectorToBytes(vectors[i]!);
      row.embedder = this.embedder.id;
    });
    const embeddings = packBytes(rows.map((r) => r.embedding));
    await this.db.sql.query(
      `UPDATE memories m SET embedding = ${unpackSql("$5::bytea", "x.at", "x.len")}, embedder = $6
         FROM unnest($1::uuid[], $2::int[], $3::int[], $4::timestamptz[]) AS x(id, at, len, updated_at)
        WHERE m.id = x.id AND m.updated_at = x.updated_at`,
      [rows.map((r) => r.id), embeddings.at, embeddings.len, rows.map((r) => r.updatedAt.toISOString()), embeddings.blob, this.embedder.id],
    );
  }

  /** Another process may have rewritten a memory while this one indexed an older state: queue it again. */
  private async requeueRewritten(rows: IndexRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.sql.query(
      `INSERT INTO index_tasks (memory_id, user_id)
       SELECT m.id, m.user_id FROM memories m
         JOIN unnest($1::uuid[], $2::timestamptz[]) AS x(id, updated_at) ON m.id = x.id
        WHERE m.updated_at <> x.updated_at`,
      [rows.map((r) => r.id), rows.map((r) => r.updatedAt.toISOString())],
    );
  }

  private async retryLater(tasks: Task[], reason: string): Promise<void> {
    await this.db.sql.query(
      `UPDATE index_tasks SET attempts = attempts + 1, last_error = $2,
              available_at = now() + make_interval(secs => least(power(2, attempts + 1), $3))
        WHERE id = ANY($1::bigint[])`,
      [tasks.map((task) => String(task.id)), reason.slice(0, 500), MAX_BACKOFF_S],
    );
  }
}

function toPoint(row: IndexRow): VectorPoint {
  return {
    id: row.id,
    userId: row.userId,
    vector: bytesToVector(row.embedding!),
    type: row.type,
    tags: row.tags,
    threadId: row.threadId,
    isArchived: row.isArchived,
    createdAt: row.createdAt,
    version: row.updatedAt.getTime(),
  };
}

export type { IndexRow };
