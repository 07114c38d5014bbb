import type { Database } from "../db/database.ts";
import { packBytes, unpackSql } from "../db/packed-bytes.ts";
import { embedderLate, type Embedder } from "../embeddings/embedder.ts";
import { waitAtMost } from "./wait-at-most.ts";
import type { Logger } from "../logger.ts";
import { bytesToVector, storedToVector, vectorToStored } from "../vectors/codec.ts";
import { backfillTerms } from "./lexical.ts";
import { freshRows, loadIndexRows, pageIndexRows, type FreshRow, type FreshRows, type IndexRow } from "./index-rows.ts";
import type { EmbeddingColumns, InsertedMemory, TaskRule } from "./memory-rows.ts";
import type { DraftedIndex } from "../vectors/drafted-index.ts";
import type { VectorPoint } from "../vectors/vector-index.ts";

/**
 * The outbox's rounds: tasks taken at once, how often it looks when not woken, the longest wait before a retry,
 * how often a long backlog logs its progress.
 */
const TASKS = { batch: 500, pollMs: 2_000, maxBackoffSeconds: 300, progressLogMs: 10_000 };
const EMBEDDING = {
  // tasks a background round embeds: enough to keep every encoder thread busy, few enough that a memory written
  // meanwhile soon has its turn
  batch: 64,
  // how long a process holds the tasks it is embedding before another (or itself, after a crash) may take them
  leaseSeconds: 120,
  // rounds at once when the embedder defers writes: one embeds while the other writes its vectors
  rounds: 2,
};
const REBUILD_PAGE = 256;
// how long a write's answer waits for the vector index (forWrite): it answers in milliseconds when well
const INDEX_WAIT_MS = 5_000;
const NIL_UUID = "00000000-0000-0000-0000-000000000000";

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

/**
 * Keeps the vector index in step with the database through the `index_tasks` outbox. A memory write queues a
 * task in its own transaction, so a write the database accepted is never lost to a failed index write: the
 * writer applies its tasks at once (so that a search right after sees the change), and whatever fails stays
 * queued, retried with backoff in the background and reconciled at start-up. A new memory stored with its
 * vector, on an index that reconciles itself at start-up, is written without a task (taskRule): one is queued
 * only if its index write fails.
 *
 * A task says only "this memory changed": applying it reads the memory as it is now, so tasks can be
 * applied twice or late without harm. In one process, applications run one at a time; across processes
 * (PostgreSQL), a memory rewritten while it was being applied is queued again.
 *
 * With an embedder too slow for a write to wait for (`deferWrites`), writes store no vector: the memory's task
 * stays queued, and the background loop leases due tasks, embeds their memories outside the queue (so that
 * writes are never held up by inference) and then applies them. A memory whose vector has not landed yet is
 * found by words (BM25) at once, and by meaning under a draft of its vector where the embedder makes drafts
 * (`holdDrafts`).
 */
export class Indexer {
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private looping = false;
  private running: Promise<void> = Promise.resolve();
  /**
   * The flush waiting in the queue, not yet started: later flushes join it. `untasked`: memories just inserted
   * with their vector and no task (TaskRule "unembedded"), indexed as inserted.
   */
  private nextFlush: { ids: Set<string>; fresh: Map<string, FreshRow>; untasked: Map<string, IndexRow>; done: Promise<void> } | undefined;

  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly index: DraftedIndex,
    private readonly logger: Logger,
    /** How long a write waits for its vector (EMBEDDER_WAIT_MS) before it is stored without and embedded later. */
    private readonly writeWaitMs: number,
  ) {}

  /**
   * Which new memories queue a task with their insert: only those without a vector when the index finds at
   * start-up what it lacks of the database (reconcile, run by start()), since a crash between a memory's commit and
   * its index write then costs it nothing; every one otherwise.
   */
  get taskRule(): TaskRule {
    return this.index.reconcile ? "unembedded" : "every";
  }

  /** Vectors to store with new content, or null when the outbox is to embed it (later or in the background). */
  async embedForWrite(texts: readonly string[]): Promise<Float32Array[] | null> {
    if (this.embedder.deferWrites) return null;
    try {
      return await waitAtMost(this.embedder.embed(texts), this.writeWaitMs, embedderLate);
    } catch (error) {
      this.logger.warn({ err: error, embedder: this.embedder.id }, "embedding failed; the memory is stored and will be embedded later");
      return null;
    }
  }

  /**
   * Columns for a vector made elsewhere (an imported memory's), when this service's embedder made it: the same
   * embedder id, its dimensions (float32 bytes, as exports carry them), every component finite, in the stored form
   * too. Undefined otherwise: the content is to be embedded anew.
   */
  keptEmbedding(embedder: string, bytes: Uint8Array): EmbeddingColumns | undefined {
    if (embedder !== this.embedder.id || bytes.byteLength !== this.embedder.dimensions * 4) return undefined;
    const embedding = vectorToStored(bytesToVector(bytes));
    if (!storedToVector(embedding).every(Number.isFinite)) return undefined;
    return { embedding, embedder };
  }

  /** Columns of a memory for vectors made by `embedForWrite`. */
  embeddingColumns(vector: Float32Array | undefined): { embedding: Uint8Array<ArrayBuffer> | null; embedder: string | null } {
    return vector ? { embedding: vectorToStored(vector), embedder: this.embedder.id } : { embedding: null, embedder: null };
  }

  /**
   * Indexes memories just inserted from the rows as inserted, without reading them back: those with a task
   * (committed with them) unless something else has been queued for them since, those without one (taskRule) at
   * once. With a deferring embedder most have no vector yet: the background loop is woken to make them (and to
   * apply their tasks); those inserted with one (an import's, a near duplicate check's) and no task are indexed
   * at once, as nothing else would index them before the next start's reconcile.
   *
   * A memory inserted without a task is indexed in the state it was inserted in: that holds because this is called
   * in the same turn of the event loop as its insert (or its transaction's commit) returned, before any later
   * write of the memory can have returned and asked for its own flush, which then comes after this one.
   */
  async indexInserted(inserted: readonly InsertedMemory[]): Promise<void> {
    if (inserted.length === 0) return;
    const fresh = freshRows(inserted);
    const untasked = [...fresh.values()].filter(({ taskId }) => taskId === null).map(({ row }) => row);
    if (this.embedder.deferWrites) {
      this.holdDrafts([...fresh.values()].map(({ row }) => row));
      this.wake();
      return this.flush([], fresh, untasked.filter((row) => this.hasVector(row)));
    }
    const tasked = inserted.filter(({ taskId }) => taskId !== null).map(({ memory }) => memory.id);
    await this.flush(tasked, fresh, untasked);
  }

  /**
   * Applies the tasks queued for these memories, after the transaction that queued them committed. `fresh`:
   * memories that transaction inserted, indexed as inserted while the task queued with them is their only
   * one (so nothing has changed them since), else read as they are now; a task another flush has applied
   * meanwhile is gone, and with it any chance of indexing a row older than what that flush indexed.
   */
  flush(memoryIds: readonly string[], fresh?: FreshRows, untasked: readonly IndexRow[] = []): Promise<void> {
    if (memoryIds.length === 0 && untasked.length === 0) return Promise.resolve();
    // flushes that queue up behind the one running are applied together when their turn comes: under
    // concurrent writes, one read of the outbox and one index write for all of them instead of one each
    if (this.nextFlush) {
      memoryIds.forEach((id) => this.nextFlush!.ids.add(id));
      fresh?.forEach((row, id) => this.nextFlush!.fresh.set(id, row));
      untasked.forEach((row) => this.nextFlush!.untasked.set(row.id, row));
      return this.nextFlush.done;
    }
    const next = {
      ids: new Set(memoryIds),
      fresh: new Map(fresh ?? []),
      untasked: new Map(untasked.map((row) => [row.id, row])),
      done: Promise.resolve(),
    };
    this.nextFlush = next;
    next.done = this.serially(async () => {
      this.nextFlush = undefined;
      try {
        if (next.ids.size > 0) {
          const tasks = await this.db.sql.query<Task>(
            `SELECT id, memory_id AS "memoryId" FROM index_tasks WHERE memory_id = ANY($1::uuid[])`,
            [[...next.ids]],
          );
          await this.apply(tasks, next.fresh);
        }
      } catch (error) {
        // the writes waiting on this flush have committed, their tasks with them: a failure here (the database
        // gone for a moment) must not answer them as failed, which a client would retry into a second copy.
        // The tasks stay queued, and the background loop applies them at its next poll
        this.logger.warn({ err: error, memories: next.ids.size }, "applying committed writes' index tasks failed; the background loop retries them");
      }
      // a memory changed since its insert has a task now, which the flush applied as the memory is now
      await this.applyUntasked([...next.untasked.values()].filter((row) => !next.ids.has(row.id)));
    });
    return next.done;
  }

  /**
   * What a write's answer waits for of its index work (indexInserted, flush): at most INDEX_WAIT_MS, the work going
   * on after. A vector index that took no answer (Qdrant hanging) held each write 15-30 s after its commit, long
   * enough for a client's timeout to retry it into a second copy (outside probe); its task is committed with it,
   * so what the index has not taken by then it takes later, as after a failure.
   */
  forWrite(work: Promise<void>): Promise<void> {
    return waitAtMost(work, INDEX_WAIT_MS, (ms) => `the vector index did not take the write within ${ms} ms`).catch((error: unknown) =>
      this.logger.warn({ err: error }, "a write was answered before the vector index took it: it is findable by meaning once the index does"),
    );
  }

  /** Indexes memories inserted with their vector and no task; those the index fails get a task, retried later. */
  private async applyUntasked(rows: IndexRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.upsertRows(rows);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn({ err: error, memories: rows.length }, "index write failed; will retry");
      // as a task that failed once: its next attempt after retryLater's first wait, 2 s. Should even that fail, the
      // memories are stored all the same, and the index takes them at the next start (reconcile)
      await this.db.sql
        .query(
          `INSERT INTO index_tasks (memory_id, user_id, attempts, last_error, available_at)
           SELECT m.id, m.user_id, 1, $2, now() + make_interval(secs => 2) FROM memories m WHERE m.id = ANY($1::uuid[])`,
          [rows.map((row) => row.id), reason.slice(0, 500)],
        )
        .catch((queueing: unknown) =>
          this.logger.error({ err: queueing, memories: rows.length }, "could not queue the failed index write; the next start indexes these memories"),
        );
    }
  }

  /** Applies the tasks that are due; returns how many there were. */
  async processDue(): Promise<number> {
    if (this.embedder.deferWrites) return this.embedDue();
    const tasks = await this.db.sql.query<Task>(
      `SELECT id, memory_id AS "memoryId" FROM index_tasks WHERE available_at <= now() ORDER BY id LIMIT $1`,
      [TASKS.batch],
    );
    if (tasks.length === 0) return 0;
    // the vectors they lack are made before their turn: an endpoint slow to answer (up to its timeout and retries)
    // must not hold up the flushes that requests wait for. A memory rewritten meanwhile keeps its own vector
    // (storeEmbeddings); the tasks a flush has applied meanwhile are gone, and not applied again
    const made = await this.embedStale(await loadIndexRows(this.db, [...new Set(tasks.map((task) => task.memoryId))]));
    await this.serially(async () => {
      if (made) await this.storeEmbeddings(made.stale, made.vectors);
      const left = await this.db.sql.query<Task>(`SELECT id, memory_id AS "memoryId" FROM index_tasks WHERE id = ANY($1::bigint[])`, [
        tasks.map((task) => String(task.id)),
      ]);
      await this.apply(left);
    });
    return tasks.length;
  }

  /**
   * Background embedding: leases due tasks, embeds their memories that lack a vector of this embedder outside
   * the queue, then stores the vectors and applies the tasks in it. A memory rewritten meanwhile keeps its new
   * content (the vector is stored only where updated_at is unchanged) and waits for the next round.
   */
  private async embedDue(): Promise<number> {
    const tasks = await this.db.sql.query<Task>(
      `UPDATE index_tasks SET available_at = now() + make_interval(secs => $2)
        WHERE id IN (SELECT id FROM index_tasks WHERE available_at <= now() ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, memory_id AS "memoryId"`,
      [EMBEDDING.batch, EMBEDDING.leaseSeconds],
    );
    if (tasks.length === 0) return 0;
    const rows = await loadIndexRows(this.db, [...new Set(tasks.map((task) => task.memoryId))]);
    const stale = rows.filter((row) => !row.embedding || row.embedder !== this.embedder.id);
    let vectors: Float32Array[] = [];
    try {
      if (stale.length) vectors = await this.embedder.embed(stale.map((row) => row.content), "background");
    } catch (error) {
      this.logger.warn({ err: error, memories: stale.length }, "embedding failed; will retry");
      await this.serially(() => this.retryLater(tasks, "embedding failed"));
      return tasks.length;
    }
    await this.serially(async () => {
      await this.storeEmbeddings(stale, vectors);
      await this.apply(tasks);
    });
    return tasks.length;
  }

  /**
   * Builds missing lexical terms, queues memories that have no vector of this embedder (after a change of
   * embedder: they are embedded in the background), catches an index that keeps its own files up with the
   * database (it may have missed writes in a crash), then works through every due task and keeps polling.
   */
  start(): void {
    this.started = true;
    this.index.onEmptied?.((embedderId) => {
      if (embedderId === this.embedder.id) void this.queueEvery();
    });
    const prepare = async () => {
      try {
        await this.freeEarlierLeases();
        await backfillTerms(this.db, this.logger);
        await this.queueUnembedded();
        await this.reconcile();
        await this.draftWaiting();
      } catch (error) {
        this.logger.error({ err: error }, "could not bring the search indexes up to date with the database");
      }
    };
    this.looping = true;
    this.running = prepare().then(() => this.loop());
  }

  /**
   * On the embedded database, the tasks an earlier process leased (killed while it embedded them) or put off
   * (backing off from a failing embedder) are due at once: no other process can be at work on them, since one
   * process holds the data directory, and they waited out EMBEDDING.leaseSeconds after a crash otherwise, the
   * memories unfindable by meaning meanwhile (outside probe). On PostgreSQL another instance may be embedding them.
   */
  private async freeEarlierLeases(): Promise<void> {
    if (this.db.kind !== "pglite") return;
    await this.db.sql.query("UPDATE index_tasks SET available_at = now() WHERE available_at > now()");
  }

  /** Starts the loop now rather than at its next poll, when it is asleep: new work for a deferring embedder. */
  private wake(): void {
    if (!this.started || this.stopped || this.looping) return;
    clearTimeout(this.timer);
    this.looping = true;
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    this.looping = true;
    try {
      let processed = 0;
      let logged = performance.now();
      const drain = async () => {
        for (let n = await this.processDue(); n > 0 && !this.stopped; n = await this.processDue()) {
          processed += n;
          if (performance.now() - logged > TASKS.progressLogMs) {
            logged = performance.now();
            this.logger.info({ tasks: processed, waiting: await this.waitingCount() }, "embedding and indexing in the background");
          }
        }
      };
      // background embedding: a second round is leased and embedding while the first is being stored, so the
      // encoder's threads do not wait for the database
      await Promise.all(Array.from({ length: this.embedder.deferWrites ? EMBEDDING.rounds : 1 }, drain));
      if (processed > 0) this.logger.info({ tasks: processed }, "applied queued index work");
    } catch (error) {
      this.logger.error({ err: error }, "index work failed");
    }
    this.looping = false;
    if (!this.stopped) this.timer = setTimeout(() => this.wake(), TASKS.pollMs).unref();
  }

  /** Index tasks queued, due or not. */
  async waitingCount(): Promise<number> {
    const [row] = await this.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM index_tasks");
    return row?.n ?? 0;
  }

  /** Queues every memory without a vector of this embedder and without a queued task. */
  private async queueUnembedded(): Promise<void> {
    const queued = await this.db.sql.query<{ id: string }>(
      `INSERT INTO index_tasks (memory_id, user_id)
       SELECT m.id, m.user_id FROM memories m
        WHERE m.embedder IS DISTINCT FROM $1 AND NOT EXISTS (SELECT 1 FROM index_tasks t WHERE t.memory_id = m.id)
       RETURNING id`,
      [this.embedder.id],
    );
    if (queued.length > 0) {
      this.logger.info(
        { memories: queued.length, embedder: this.embedder.id },
        "memories without a vector of this embedder: embedding them in the background (search answers meanwhile)",
      );
    }
  }

  /** Queues every memory with a vector of this embedder: the index lost them (onEmptied), the database has them. */
  private async queueEvery(): Promise<void> {
    try {
      const queued = await this.db.sql.query<{ id: string }>(
        `INSERT INTO index_tasks (memory_id, user_id)
         SELECT m.id, m.user_id FROM memories m
          WHERE m.embedder = $1 AND NOT EXISTS (SELECT 1 FROM index_tasks t WHERE t.memory_id = m.id)
         RETURNING id`,
        [this.embedder.id],
      );
      if (queued.length > 0) {
        this.logger.warn({ memories: queued.length, embedder: this.embedder.id }, "the vector index had none of these memories' vectors: writing them again");
        this.wake();
      }
    } catch (error) {
      this.logger.error({ err: error }, "could not queue the memories the vector index lost; `npm run reindex` writes them again");
    }
  }

  private async reconcile(): Promise<void> {
    if (!this.index.reconcile) return;
    const rows = await this.db.sql.query<{ id: string; version: string }>(
      `SELECT id, (extract(epoch FROM updated_at) * 1000)::bigint::text AS version FROM memories WHERE embedder = $1`,
      [this.embedder.id],
    );
    const { stale, extra: notRead } = await this.index.reconcile(this.embedder.id, new Map(rows.map((r) => [r.id, Number(r.version)])));
    // the service takes writes while this runs: a memory written after the read above can be in the index by now,
    // and only what the database lacks still leaves it (such a memory was deleted from the index, unfindable by
    // meaning until the next start)
    const kept = notRead.length
      ? await this.db.sql.query<{ id: string }>("SELECT id FROM memories WHERE id = ANY($1::uuid[]) AND embedder = $2", [notRead, this.embedder.id])
      : [];
    const written = new Set(kept.map((row) => row.id));
    const extra = notRead.filter((id) => !written.has(id));
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
      const deferred = this.embedder.deferWrites;
      // vectors are made before (embedForWrite for a request, processDue for the background, within their waits),
      // never here: a flush that requests wait for would wait for the embedder again
      const unembedded = new Set(rows.filter((row) => !this.hasVector(row)).map((row) => row.id));
      await this.upsertRows(rows);
      // a memory waiting for its vector leaves the index meanwhile (its old vector no longer says what it holds),
      // and is searchable under a draft of its new one
      const outdated = deferred ? [...unembedded].filter((id) => !fresh?.has(id)) : [];
      await this.index.delete(this.embedder.id, [...memoryIds.filter((id) => !present.has(id)), ...outdated]);
      this.holdDrafts(rows);
      const done = tasks.filter((task) => !unembedded.has(task.memoryId)).map((task) => String(task.id));
      await this.db.sql.query("DELETE FROM index_tasks WHERE id = ANY($1::bigint[])", [done]);
      if (deferred) {
        // due at once, also when leased: a memory rewritten while its old content was embedding waits no longer
        const waiting = tasks.filter((t) => unembedded.has(t.memoryId)).map((t) => String(t.id));
        if (waiting.length) await this.db.sql.query("UPDATE index_tasks SET available_at = now() WHERE id = ANY($1::bigint[])", [waiting]);
        if (unembedded.size) this.wake();
      } else if (unembedded.size) {
        await this.retryLater(tasks.filter((t) => unembedded.has(t.memoryId)), "embedding failed");
      }
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
      // embedded outside the queue (writes go on meanwhile), then stored and indexed as the rows are by then
      const rows = await pageIndexRows(this.db, after, REBUILD_PAGE);
      const stale = rows.filter((row) => !this.hasVector(row));
      const vectors = stale.length ? await this.embedder.embed(stale.map((row) => row.content), "background") : [];
      await this.serially(async () => {
        await this.storeEmbeddings(stale, vectors);
        await this.upsertRows(await loadIndexRows(this.db, rows.map((row) => row.id)));
      });
      progress.embedded += stale.length;
      if (rows.length === 0) break;
      progress.done += rows.length;
      onProgress({ ...progress });
      after = rows[rows.length - 1]!.id;
    }
    return progress;
  }

  private hasVector(row: IndexRow): boolean {
    return row.embedding !== null && row.embedder === this.embedder.id;
  }

  /** Writes the rows that have a vector of the current embedder to the index. */
  async upsertRows(rows: IndexRow[]): Promise<void> {
    const points = rows.filter((row) => this.hasVector(row)).map((row) => toPoint(row, storedToVector(row.embedding!)));
    await this.index.upsert(this.embedder.id, points);
  }

  private get drafting(): boolean {
    return this.db.singleWriter && this.embedder.deferWrites && this.embedder.draft !== undefined;
  }

  /**
   * Drafts of the vectors of memories waiting for theirs (Embedder.draft), held beside the index (DraftedIndex):
   * searchable by meaning at once, until the vector lands. Only where this process is the one writer (the
   * embedded database): with several servers on PostgreSQL, each would hold drafts the others cannot end.
   */
  private holdDrafts(rows: readonly IndexRow[]): void {
    if (!this.drafting) return;
    const points = rows.flatMap((row) => {
      const draft = this.hasVector(row) ? undefined : this.embedder.draft!(row.content);
      return draft ? [toPoint(row, draft)] : [];
    });
    this.index.putDrafts(this.embedder.id, points);
  }

  /** Drafts of the memories still waiting for their vector, after a restart (drafts are not saved). */
  private async draftWaiting(): Promise<void> {
    if (!this.drafting) return;
    for (let after = NIL_UUID; ; ) {
      const page = await this.db.sql.query<{ id: string }>(
        `SELECT DISTINCT memory_id AS id FROM index_tasks WHERE memory_id > $1::uuid ORDER BY 1 LIMIT $2`,
        [after, REBUILD_PAGE],
      );
      if (page.length === 0) return;
      const rows = await loadIndexRows(this.db, page.map((row) => row.id));
      await this.serially(async () => this.holdDrafts(rows));
      after = page[page.length - 1]!.id;
    }
  }

  /** Vectors for the rows without one of the current embedder; undefined when there are none to make, or it failed. */
  private async embedStale(rows: IndexRow[]): Promise<{ stale: IndexRow[]; vectors: Float32Array[] } | undefined> {
    const stale = rows.filter((row) => !this.hasVector(row));
    if (stale.length === 0) return undefined;
    try {
      return { stale, vectors: await this.embedder.embed(stale.map((row) => row.content)) };
    } catch (error) {
      this.logger.warn({ err: error, memories: stale.length }, "embedding failed; will retry");
      return undefined;
    }
  }

  /** Stores vectors made for `rows`; a row rewritten meanwhile keeps its own (newer) vector. */
  async storeEmbeddings(rows: IndexRow[], vectors: Float32Array[]): Promise<void> {
    if (rows.length === 0) return;
    rows.forEach((row, i) => {
      row.embedding = vectorToStored(vectors[i]!);
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
      [tasks.map((task) => String(task.id)), reason.slice(0, 500), TASKS.maxBackoffSeconds],
    );
  }
}

function toPoint(row: IndexRow, vector: Float32Array): VectorPoint {
  return {
    id: row.id,
    userId: row.userId,
    vector,
    type: row.type,
    tags: row.tags,
    threadId: row.threadId,
    isArchived: row.isArchived,
    createdAt: row.createdAt,
    metadata: row.metadata,
    version: row.updatedAt.getTime(),
  };
}

