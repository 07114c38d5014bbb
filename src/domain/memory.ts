import { WritingService } from "./writing-service.ts";
import type { Author, Principal } from "./principal.ts";
import { AppError, invalid, notFound } from "../errors.ts";
import type { Memory, Prisma } from "../generated/prisma/client.ts";
import { Coalescer } from "./coalesce.ts";
import type { DedupeMode, DuplicateGuard, Placement } from "./dedupe.ts";
import { unexpired, unexpiredSql } from "./expiry.ts";
import { GroupInsert } from "./group-insert.ts";
import type { Counted } from "./list-totals.ts";
import { isUuid, newId } from "./ids.ts";
import { LEXICAL_VERSION, replaceTerms } from "./lexical.ts";
import { deletingKeySql, insertMemories, lockOwnThread, updateColumns, type EmbeddingColumns, type InsertedMemory, type MemoryChanges, type RecordTimes } from "./memory-rows.ts";
import {
  checkTags,
  checkType,
  completeValues,
  patchValues,
  unknownThread,
  type MemoryInput,
  type MemoryValues,
} from "./memory-input.ts";
import { countMatching, countWholeList, idsInPage, idsInWindow, matching, type CursorWindow, type ListFilter } from "./memory-pages.ts";
import { checkPage, pageFrom, readAhead, type PageOf, type Page } from "./paging.ts";

export type { Memory };

/** The fields a caller wants back (the Pothos Prisma plugin passes the GraphQL selection here). */
export interface MemoryQuery {
  select?: Prisma.MemorySelect;
  include?: Prisma.MemoryInclude;
}

export type MemoryFilter = ListFilter;

/** Where a memory from the deprecated collection route says it belongs; ownership still comes from the key. */
export interface LegacyOrigin {
  workspaceId: string;
  legacyUserId: string | null;
}

export const DEFAULT_LIST_LIMIT = 20;
/** The most items one batch create may hold; fixed by the API specification. */
export const MAX_BATCH_ITEMS = 100;

/** A create's answer: the memory stored, or the one already stored that the duplicate guard answered instead. */
export type CreatedMemory = Memory & { deduplicated?: boolean };

export interface BatchItemOutcome {
  success: boolean;
  memory?: CreatedMemory;
  /** The memory was stored already: the duplicate guard answered it instead of storing a copy. */
  deduplicated?: boolean;
  /** Why the item was not stored. */
  error?: AppError;
}

export interface BatchOutcome {
  results: BatchItemOutcome[];
  successful: number;
  failed: number;
}

/** Every column but the embedding, which only the indexer reads. */
export const memoryColumns = {
  id: true,
  userId: true,
  content: true,
  data: true,
  type: true,
  tags: true,
  metadata: true,
  threadId: true,
  isArchived: true,
  workspaceId: true,
  legacyUserId: true,
  embedder: true,
  expiresAt: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.MemorySelect;

// what the vector index keeps of a memory: a change to any of these must reach it
const INDEXED_FIELDS = ["content", "type", "tags", "threadId", "isArchived", "metadata"] as const;

// grouped create statements at once on PostgreSQL: enough to use a few of the pool's connections, leaving the
// rest to reads; on the embedded database, one running in its thread while the next waits there, so that the
// thread does not wait for the event loop between them (bench:http: creates ~10% more a second than with one)
const POSTGRES_INSERTS_IN_FLIGHT = 4;
const EMBEDDED_INSERTS_IN_FLIGHT = 2;

const newestFirst: Prisma.MemoryOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

export class MemoryService extends WritingService {
  private readonly reads = new Coalescer<{ userId: string; query: MemoryQuery }, Memory>(({ userId, query }, ids) =>
    this.db.prisma.memory.findMany({ ...selecting(query, "id"), where: { userId, id: { in: [...ids] }, ...unexpired() } }),
  );

  private readonly inserts: GroupInsert;

  constructor(
    private readonly guard: DuplicateGuard,
    ...deps: ConstructorParameters<typeof WritingService>
  ) {
    super(...deps);
    const inFlight = this.db.singleWriter ? EMBEDDED_INSERTS_IN_FLIGHT : POSTGRES_INSERTS_IN_FLIGHT;
    this.inserts = new GroupInsert(this.db, inFlight, this.indexer.taskRule);
  }

  async get(principal: Principal, id: string, query: MemoryQuery = {}): Promise<Memory | null> {
    if (!isUuid(id)) return null;
    const scope = { userId: principal.userId, query };
    return this.reads.load(`${principal.userId} ${JSON.stringify(query)}`, scope, id.toLowerCase());
  }

  async list(
    principal: Principal,
    filter: MemoryFilter,
    limit: number | null | undefined,
    offset: number | null | undefined,
    query: MemoryQuery = {},
  ): Promise<PageOf<Memory>> {
    const page = checkPage(limit, offset, DEFAULT_LIST_LIMIT);
    if (filter.and != null || filter.or != null || filter.not != null || filter.metadata != null) {
      return this.listMatching(principal, filter, page, query);
    }
    const filtered = this.whereOf(principal, filter);
    const where = { ...filtered, ...unexpired() };
    const [items, total] = await Promise.all([
      this.db.prisma.memory.findMany({
        ...selecting(query),
        where,
        orderBy: newestFirst,
        take: readAhead(page),
        skip: page.offset,
      }),
      this.totals.total(principal.userId, JSON.stringify(filtered), () =>
        // the user alone: the whole list, whose total the database keeps
        Object.keys(filtered).length === 1 ? countWholeList(this.db.sql, principal.userId) : this.countLive(where),
      ),
    ]);
    return pageFrom(items, total, page);
  }

  /**
   * A list whose filter has boolean logic or metadata conditions, which Prisma's where cannot say: the page's
   * ids by SQL, then the rows as the caller selects them.
   */
  private async listMatching(principal: Principal, filter: MemoryFilter, page: Page, query: MemoryQuery): Promise<PageOf<Memory>> {
    const match = matching(principal.userId, filter);
    const [ids, total] = await Promise.all([
      idsInPage(this.db.sql, match, readAhead(page), page.offset),
      this.totals.total(principal.userId, `${match.where} ${JSON.stringify(match.params)}`, () => countMatching(this.db.sql, match)),
    ]);
    return pageFrom(await this.rowsInOrder(principal, ids, query), total, page);
  }

  /** One window of the newest-first list, for cursor pagination: stable while memories are added. */
  async listWindow(principal: Principal, filter: MemoryFilter, window: CursorWindow, query: MemoryQuery = {}): Promise<Memory[]> {
    const ids = await idsInWindow(this.db.sql, matching(principal.userId, filter), window);
    // a cursor is made of the creation time and the id, whatever the caller selects
    return this.rowsInOrder(principal, ids, selecting(query, "createdAt"));
  }

  /** The rows of these ids as the caller selects them, in the ids' order (one gone meanwhile is left out). */
  private async rowsInOrder(principal: Principal, ids: string[], query: MemoryQuery): Promise<Memory[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.prisma.memory.findMany({
      ...selecting(query, "id"),
      where: { userId: principal.userId, id: { in: ids }, ...unexpired() },
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  private async countLive(where: Prisma.MemoryWhereInput): Promise<Counted> {
    const counted = await this.db.prisma.memory.aggregate({ where, _count: { _all: true }, _min: { expiresAt: true } });
    return { total: counted._count._all, nextExpiry: counted._min.expiresAt };
  }

  /** A list's conditions but the expiry, which unexpired() adds as of the moment it runs. */
  private whereOf(principal: Principal, filter: MemoryFilter): Prisma.MemoryWhereInput {
    const where: Prisma.MemoryWhereInput = { userId: principal.userId };
    if (filter.type != null) where.type = checkType(filter.type);
    if (filter.tags != null && filter.tags.length > 0) where.tags = { hasEvery: checkTags(filter.tags, this.limits) };
    if (filter.threadId != null) {
      if (!isUuid(filter.threadId)) throw invalid("threadId", "must be a thread id");
      where.threadId = filter.threadId;
    }
    if (filter.isArchived != null) where.isArchived = filter.isArchived;
    if (filter.workspaceId != null) where.workspaceId = filter.workspaceId;
    return where;
  }

  async create(principal: Principal, input: MemoryInput, origin?: LegacyOrigin): Promise<CreatedMemory> {
    // the deprecated collection route keeps the answers its clients know: it never deduplicates
    if (!origin && this.guard.modeOf(input.dedupe) !== "off") {
      const [outcome] = (await this.batchCreate(principal, [input])).results;
      if (outcome!.error) throw outcome!.error;
      return { ...outcome!.memory!, deduplicated: outcome!.deduplicated === true };
    }
    const values = completeValues(input, this.limits);
    const [vector] = (await this.indexer.embedForWrite([values.content])) ?? [];
    const row = { ...values, ...origin, id: newId(), userId: principal.userId, writtenByKey: principal.keyId, ...this.indexer.embeddingColumns(vector) };
    const inserted = await this.inserts.insert(row);
    // the one row insertMemories leaves out is a row whose thread is not (or no longer) the user's
    if (!inserted) throw unknownThread();
    this.totals.changed(principal.userId, [inserted.memory.id]);
    this.relay.wake();
    await this.indexer.forWrite(this.indexer.indexInserted([inserted]));
    return inserted.memory;
  }

  /**
   * Creates up to MAX_BATCH_ITEMS memories: each item is checked on its own and the valid ones are stored even
   * when others are not. One embedder call for the batch, and one statement (so one transaction) to store it,
   * which also checks the threads (so that one deleted meanwhile fails its items alone).
   */
  async batchCreate(principal: Principal, items: readonly MemoryInput[], dedupe?: boolean | null): Promise<BatchOutcome> {
    if (items.length < 1 || items.length > MAX_BATCH_ITEMS) {
      throw invalid("items", `must hold 1 to ${MAX_BATCH_ITEMS} memories (it holds ${items.length})`);
    }
    const results: BatchItemOutcome[] = new Array(items.length);
    const valid: { index: number; values: MemoryValues }[] = [];
    items.forEach((item, index) => {
      try {
        valid.push({ index, values: completeValues(item, this.limits) });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        results[index] = { success: false, error };
      }
    });
    const modes = valid.map(({ index }) => this.guard.modeOf(items[index]!.dedupe ?? dedupe));
    const vectors = await this.vectorsFor(valid.map((v) => v.values.content), modes);
    const rows = valid.map(({ values }, k) => ({
      ...values,
      id: newId(),
      userId: principal.userId,
      writtenByKey: principal.keyId,
      ...this.indexer.embeddingColumns(vectors[k]),
    }));
    const placements = modes.every((mode) => mode === "off")
      ? placed(rows, await insertMemories(this.db, rows, this.indexer.taskRule))
      : await this.guard.store(rows.map((row, k) => ({ row, mode: modes[k]!, vector: vectors[k] })), this.indexer.taskRule);
    const stored = placements.flatMap((placement) => ("stored" in placement ? [placement.stored] : []));
    if (stored.length) {
      this.totals.changed(principal.userId, stored.map(({ memory }) => memory.id));
      this.relay.wake();
    }
    await this.indexer.forWrite(this.indexer.indexInserted(stored));
    placements.forEach((placement, k) => {
      results[valid[k]!.index] =
        "stored" in placement ? { success: true, memory: placement.stored.memory }
        : "duplicate" in placement ? { success: true, memory: { ...placement.duplicate, deduplicated: true }, deduplicated: true }
        : { success: false, error: unknownThread() };
    });
    const successful = results.filter((result) => result.success).length;
    return { results, successful, failed: items.length - successful };
  }

  /**
   * The vectors to store with new contents: the write's own (an embedder fast enough to wait for), else, for
   * contents the near-duplicate check compares, the guard's (which are then stored too, saving their background
   * embedding); undefined where there is none.
   */
  private async vectorsFor(texts: readonly string[], modes: readonly DedupeMode[]): Promise<(Float32Array | undefined)[]> {
    const written = await this.indexer.embedForWrite(texts);
    if (written) return written;
    const near = texts.flatMap((text, k) => (modes[k] === "near" ? [{ text, k }] : []));
    const made = (await this.guard.vectors(near.map(({ text }) => text))) ?? [];
    const vectors: (Float32Array | undefined)[] = new Array(texts.length);
    near.forEach(({ k }, i) => (vectors[k] = made[i]));
    return vectors;
  }

  /** PATCH: what is not sent is kept; with nothing sent, the memory is answered as it is (no version, no event). */
  async update(principal: Principal, id: string, input: MemoryInput, query: MemoryQuery = {}): Promise<Memory> {
    const values = patchValues(input, this.limits);
    if (Object.keys(values).length > 0) return this.write(principal, id, values, query);
    const memory = await this.get(principal, id, query);
    if (!memory) throw notFound("Memory");
    return memory;
  }

  /** PUT: every writable field is replaced; what is not sent goes back to its default. */
  replace(principal: Principal, id: string, input: MemoryInput, query: MemoryQuery = {}): Promise<Memory> {
    return this.write(principal, id, completeValues(input, this.limits), query);
  }

  /**
   * An import's full replacement of a memory its author holds already: `vector`, the file's embedding when it
   * was made by this service's embedder, is kept instead of embedding the content again; `times`, the record's.
   */
  restore(author: Author, id: string, values: MemoryValues, vector?: EmbeddingColumns, times: RecordTimes = {}): Promise<Memory> {
    // a memory of the author's past its expiry, which the sweeper has not deleted yet, is replaced as well
    return this.write(author, id, { ...values, ...times }, {}, vector, true);
  }

  private async write(
    author: Author,
    id: string,
    values: Partial<MemoryValues> & RecordTimes,
    query: MemoryQuery,
    vector?: EmbeddingColumns,
    expiredToo = false,
  ): Promise<Memory> {
    if (!isUuid(id)) throw notFound("Memory");
    let changes: MemoryChanges = { ...values, writtenByKey: author.keyId };
    const content = values.content;
    if (content !== undefined) {
      const columns = vector ?? this.indexer.embeddingColumns(((await this.indexer.embedForWrite([content])) ?? [])[0]);
      changes = { ...changes, ...columns, lexicalVersion: LEXICAL_VERSION };
    }
    const reindex = INDEXED_FIELDS.some((field) => values[field] !== undefined);
    const written = await this.db.sql.transaction(async (sql) => {
      // the thread before the memory: lockOwnThread says why
      if (values.threadId != null && !(await lockOwnThread(sql, author.userId, values.threadId))) throw unknownThread();
      const [row] = await sql.query<{ id: string }>(
        `SELECT id FROM memories WHERE id = $1::uuid AND user_id = $2::uuid${expiredToo ? "" : ` AND ${unexpiredSql()}`} FOR UPDATE`,
        [id, author.userId],
      );
      if (!row) throw notFound("Memory");
      // the row is updated once (lexical_version with the rest): PostgreSQL re-runs the foreign key checks of
      // a row this transaction has written when it is updated again, and that check on the memory's thread
      // would wait for a delete of the thread, which waits for this row
      const memory = await updateColumns(sql, id, changes);
      if (!memory) return undefined;
      if (content !== undefined) await replaceTerms(sql, [{ id, userId: author.userId, content }]);
      if (reindex) await sql.query("INSERT INTO index_tasks (memory_id, user_id) VALUES ($1, $2)", [id, author.userId]);
      return memory;
    });
    if (written) {
      this.totals.changed(author.userId, [id]);
      this.relay.wake();
      if (reindex) await this.indexer.forWrite(this.indexer.flush([id]));
      // the memory as this write left it, not as later writes (or a delete) have since: its relations, when asked
      // for, are read as GraphQL reads any others (the fields' own loaders)
      return written;
    }
    // nothing to write: the memory as it is, or gone since the lock was released (as if the delete came first)
    const memory = await this.db.prisma.memory.findUnique({ ...selecting(query), where: { id } });
    if (!memory) throw notFound("Memory");
    return memory;
  }

  async delete(principal: Principal, id: string): Promise<void> {
    if (!isUuid(id)) throw notFound("Memory");
    // one statement: the task exists exactly when the memory was deleted
    const gone = await this.db.sql.query(
      `WITH gone AS (DELETE FROM memories
                     WHERE id = $1::uuid AND user_id = $2::uuid AND ${unexpiredSql()} AND ${deletingKeySql("$3")} RETURNING id, user_id)
       INSERT INTO index_tasks (memory_id, user_id) SELECT id, user_id FROM gone RETURNING id`,
      [id, principal.userId, principal.keyId],
    );
    const count = gone.length;
    if (count === 0) throw notFound("Memory");
    this.totals.changed(principal.userId, [id]);
    this.relay.wake();
    await this.indexer.forWrite(this.indexer.flush([id]));
  }
}

/** Placements of rows stored without the guard: each stored, or left out (its thread is not the user's). */
function placed(rows: readonly { id: string }[], stored: readonly InsertedMemory[]): Placement[] {
  const byId = new Map(stored.map((inserted) => [inserted.memory.id, inserted]));
  return rows.map((row) => {
    const inserted = byId.get(row.id);
    return inserted ? { stored: inserted } : { leftOut: true };
  });
}

/** `query`, or every column but the embedding when it selects nothing; with `fields` when it selects at all. */
export function selecting(query: MemoryQuery, ...fields: (keyof Prisma.MemorySelect)[]): MemoryQuery {
  if (query.include) return query; // include mode reads every column anyway
  const select = query.select ?? memoryColumns;
  return { select: { ...select, ...Object.fromEntries(fields.map((field) => [field, true])) } };
}
