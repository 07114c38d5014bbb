import type { Principal } from "../auth/principal.ts";
import type { Limits } from "../config.ts";
import type { Database } from "../db/database.ts";
import { AppError, invalid, notFound } from "../errors.ts";
import type { Memory, Prisma } from "../generated/prisma/client.ts";
import { Coalescer } from "./coalesce.ts";
import { GroupInsert } from "./group-insert.ts";
import { isUuid, newId } from "./ids.ts";
import type { EventRelay } from "../events/event-relay.ts";
import type { Indexer } from "./indexer.ts";
import type { ListTotals } from "./list-totals.ts";
import { LEXICAL_VERSION, replaceTerms } from "./lexical.ts";
import { insertMemories, lockOwnThread, updateColumns, type MemoryChanges } from "./memory-rows.ts";
import {
  checkTags,
  checkType,
  completeValues,
  patchValues,
  unknownThread,
  type MemoryInput,
  type MemoryValues,
} from "./memory-input.ts";
import { checkPage, pageOf, type PageOf } from "./paging.ts";

export type { Memory };

/** The fields a caller wants back (the Pothos Prisma plugin passes the GraphQL selection here). */
export interface MemoryQuery {
  select?: Prisma.MemorySelect;
  include?: Prisma.MemoryInclude;
}

export interface MemoryFilter {
  type?: string | null;
  tags?: readonly string[] | null;
  threadId?: string | null;
  isArchived?: boolean | null;
  /** Only for the deprecated workspace-scoped listing. */
  workspaceId?: string | null;
}

/** Where a memory from the deprecated collection route says it belongs; ownership still comes from the key. */
export interface LegacyOrigin {
  workspaceId: string;
  legacyUserId: string | null;
}

export const DEFAULT_LIST_LIMIT = 20;
/** The most items one batch create may hold; fixed by the API specification. */
export const MAX_BATCH_ITEMS = 100;

/** Plain data, not an Error: GraphQL would raise an Error a resolver returns. */
export interface ItemError {
  code: string;
  message: string;
  field: string | null;
}

export interface BatchItemOutcome {
  success: boolean;
  memory?: Memory;
  error?: ItemError;
}

const itemError = (error: AppError): ItemError => ({ code: error.code, message: error.message, field: error.field ?? null });

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
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.MemorySelect;

// what the vector index keeps of a memory: a change to any of these must reach it
const INDEXED_FIELDS = ["content", "type", "tags", "threadId", "isArchived"] as const;

// grouped create statements at once on PostgreSQL: enough to use a few of the pool's connections, leaving the
// rest to reads
const POSTGRES_INSERTS_IN_FLIGHT = 4;

const newestFirst: Prisma.MemoryOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

export class MemoryService {
  private readonly reads = new Coalescer<{ userId: string; query: MemoryQuery }, Memory>(({ userId, query }, ids) =>
    this.db.prisma.memory.findMany({ ...selecting(query, "id"), where: { userId, id: { in: [...ids] } } }),
  );

  private readonly inserts: GroupInsert;

  constructor(
    private readonly db: Database,
    private readonly limits: Limits,
    private readonly totals: ListTotals,
    private readonly indexer: Indexer,
    private readonly relay: EventRelay,
  ) {
    this.inserts = new GroupInsert(db, db.singleWriter ? 1 : POSTGRES_INSERTS_IN_FLIGHT);
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
    const where = this.whereOf(principal, filter);
    const [items, total] = await Promise.all([
      this.db.prisma.memory.findMany({
        ...selecting(query),
        where,
        orderBy: newestFirst,
        take: page.limit,
        skip: page.offset,
      }),
      this.totals.total(principal.userId, JSON.stringify(where), () => this.db.prisma.memory.count({ where })),
    ]);
    return pageOf(items, total, page);
  }

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

  async create(principal: Principal, input: MemoryInput, origin?: LegacyOrigin): Promise<Memory> {
    const values = completeValues(input, this.limits);
    const [vector] = (await this.indexer.embedForWrite([values.content])) ?? [];
    const row = { ...values, ...origin, id: newId(), userId: principal.userId, ...this.indexer.embeddingColumns(vector) };
    const inserted = await this.inserts.insert(row);
    // the one row insertMemories leaves out is a row whose thread is not (or no longer) the user's
    if (!inserted) throw unknownThread();
    this.totals.changed(principal.userId);
    this.relay.wake();
    await this.indexer.indexInserted([inserted]);
    return inserted.memory;
  }

  /**
   * Creates up to MAX_BATCH_ITEMS memories: each item is checked on its own and the valid ones are stored even
   * when others are not. One embedder call for the batch, and one statement (so one transaction) to store it,
   * which also checks the threads (so that one deleted meanwhile fails its items alone).
   */
  async batchCreate(principal: Principal, items: readonly MemoryInput[]): Promise<BatchOutcome> {
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
        results[index] = { success: false, error: itemError(error) };
      }
    });
    const vectors = await this.indexer.embedForWrite(valid.map((v) => v.values.content));
    const rows = valid.map(({ index, values }, k) => ({
      index,
      row: { ...values, id: newId(), userId: principal.userId, ...this.indexer.embeddingColumns(vectors?.[k]) },
    }));
    const stored = await insertMemories(this.db, rows.map(({ row }) => row));
    if (stored.length) {
      this.totals.changed(principal.userId);
      this.relay.wake();
    }
    await this.indexer.indexInserted(stored);
    const byId = new Map(stored.map(({ memory }) => [memory.id, memory]));
    for (const { index, row } of rows) {
      const memory = byId.get(row.id);
      results[index] = memory ? { success: true, memory } : { success: false, error: itemError(unknownThread()) };
    }
    return { results, successful: stored.length, failed: items.length - stored.length };
  }

  /** PATCH: what is not sent is kept. */
  update(principal: Principal, id: string, input: MemoryInput, query: MemoryQuery = {}): Promise<Memory> {
    return this.write(principal, id, patchValues(input, this.limits), query);
  }

  /** PUT: every writable field is replaced; what is not sent goes back to its default. */
  replace(principal: Principal, id: string, input: MemoryInput, query: MemoryQuery = {}): Promise<Memory> {
    return this.write(principal, id, completeValues(input, this.limits), query);
  }

  private async write(
    principal: Principal,
    id: string,
    values: Partial<MemoryValues>,
    query: MemoryQuery,
  ): Promise<Memory> {
    if (!isUuid(id)) throw notFound("Memory");
    let changes: MemoryChanges = values;
    const content = values.content;
    if (content !== undefined) {
      const [vector] = (await this.indexer.embedForWrite([content])) ?? [];
      changes = { ...changes, ...this.indexer.embeddingColumns(vector), lexicalVersion: LEXICAL_VERSION };
    }
    const reindex = INDEXED_FIELDS.some((field) => values[field] !== undefined);
    await this.db.sql.transaction(async (sql) => {
      // the thread before the memory: lockOwnThread says why
      if (values.threadId != null && !(await lockOwnThread(sql, principal.userId, values.threadId))) throw unknownThread();
      const [row] = await sql.query<{ id: string }>(
        "SELECT id FROM memories WHERE id = $1::uuid AND user_id = $2::uuid FOR UPDATE",
        [id, principal.userId],
      );
      if (!row) throw notFound("Memory");
      // the row is updated once (lexical_version with the rest): PostgreSQL re-runs the foreign key checks of
      // a row this transaction has written when it is updated again, and that check on the memory's thread
      // would wait for a delete of the thread, which waits for this row
      await updateColumns(sql, id, changes);
      if (content !== undefined) await replaceTerms(sql, [{ id, userId: principal.userId, content }]);
      if (reindex) await sql.query("INSERT INTO index_tasks (memory_id, user_id) VALUES ($1, $2)", [id, principal.userId]);
    });
    this.totals.changed(principal.userId);
    this.relay.wake();
    if (reindex) await this.indexer.flush([id]);
    // deleted since the update committed: answered as if the delete had come first
    const memory = await this.db.prisma.memory.findUnique({ ...selecting(query), where: { id } });
    if (!memory) throw notFound("Memory");
    return memory;
  }

  async delete(principal: Principal, id: string): Promise<void> {
    if (!isUuid(id)) throw notFound("Memory");
    // one statement: the task exists exactly when the memory was deleted
    const count = await this.db.prisma.$executeRaw`
      WITH gone AS (DELETE FROM memories WHERE id = ${id}::uuid AND user_id = ${principal.userId}::uuid RETURNING id, user_id)
      INSERT INTO index_tasks (memory_id, user_id) SELECT id, user_id FROM gone`;
    if (count === 0) throw notFound("Memory");
    this.totals.changed(principal.userId);
    this.relay.wake();
    await this.indexer.flush([id]);
  }
}

/** `query`, or every column but the embedding when it selects nothing; with `field` when it selects at all. */
export function selecting(query: MemoryQuery, field?: keyof Prisma.MemorySelect): MemoryQuery {
  if (query.include) return query; // include mode reads every column anyway
  const select = query.select ?? memoryColumns;
  return { select: field ? { ...select, [field]: true } : select };
}
