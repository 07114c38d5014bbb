import { WritingService } from "./writing-service.ts";
import type { Principal } from "./principal.ts";
import type { Limits } from "../config.ts";
import type { Sql } from "../db/database.ts";
import { invalid, notFound } from "../errors.ts";
import type { Prisma, Thread, ThreadStatus } from "../generated/prisma/client.ts";
import { isUuid, newId } from "./ids.ts";
import { checkText } from "./text-field.ts";
import { deletingKeySql, RISEN_UPDATED_AT } from "./memory-rows.ts";
import type { JsonObject } from "./json.ts";
import { checkMetadata } from "./memory-input.ts";
import { checkPage, pageFrom, readAhead, type PageOf } from "./paging.ts";

export type { Thread, ThreadStatus };

export const DEFAULT_THREAD_LIMIT = 20;
export const MAX_TITLE_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 5_000;
/** Memories a thread's delete takes out per transaction (see ThreadService.delete). */
export const DELETE_SLICE = 500;

export interface ThreadQuery {
  select?: Prisma.ThreadSelect;
  include?: Prisma.ThreadInclude;
}

/** A thread's columns an update sets, as it left them (updated_at as the driver gives it). */
type WrittenThread = Pick<Thread, "title" | "description" | "metadata" | "status"> & { updatedAt: Date | string };

export interface ThreadInput {
  title?: string | null;
  description?: string | null;
  metadata?: unknown;
  status?: ThreadStatus | null;
}

const THREAD_STATUSES: readonly ThreadStatus[] = ["active", "archived", "completed"];

/** A thread's values, checked: what is not given takes its default (status active, no description, {}). */
export function threadValues(input: ThreadInput, limits: Limits) {
  if (input.title == null) throw invalid("title", "is required");
  const status = input.status ?? "active";
  if (!THREAD_STATUSES.includes(status)) throw invalid("status", `must be one of ${THREAD_STATUSES.join(", ")}`);
  return {
    title: checkText("title", input.title, MAX_TITLE_CHARS),
    description: input.description == null ? null : checkText("description", input.description, MAX_DESCRIPTION_CHARS),
    metadata: checkMetadata(input.metadata ?? {}, limits) as JsonObject,
    status,
  };
}

/** A thread's row as an insert or a whole update writes it; a time not given is the database's clock. */
export interface ThreadRow extends ReturnType<typeof threadValues> {
  id: string;
  userId: string;
  createdAt?: Date | null;
  updatedAt?: Date | null;
}

/**
 * Writes a thread's row whole: inserts it (false when its id is taken) or updates the user's row of that id (false
 * when there is none). In SQL rather than through Prisma, whose create and update dropped a metadata key called
 * __proto__, which JSON allows and memories keep.
 */
export async function writeThreadRow(sql: Sql, mode: "insert" | "update", row: ThreadRow): Promise<boolean> {
  const params = [row.id, row.userId, row.title, row.description, JSON.stringify(row.metadata), row.status, row.createdAt ?? null, row.updatedAt ?? null];
  const written = await sql.query(
    mode === "insert"
      ? `INSERT INTO threads (id, user_id, title, description, metadata, status, created_at, updated_at)
         VALUES ($1::uuid, $2::uuid, $3, $4, $5::jsonb, $6::thread_status, coalesce($7::timestamptz, now()), coalesce($8::timestamptz, now()))
         ON CONFLICT (id) DO NOTHING RETURNING id`
      : `UPDATE threads SET title = $3, description = $4, metadata = $5::jsonb, status = $6::thread_status,
                created_at = coalesce($7::timestamptz, created_at), updated_at = coalesce($8::timestamptz, ${RISEN_UPDATED_AT})
          WHERE id = $1::uuid AND user_id = $2::uuid RETURNING id`,
    params,
  );
  return written.length > 0;
}

const newestFirst: Prisma.ThreadOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

/** Threads group a user's memories (a conversation, a project); a memory belongs to at most one. */
export class ThreadService extends WritingService {
  async create(principal: Principal, input: ThreadInput, query: ThreadQuery = {}): Promise<Thread> {
    const id = newId();
    await writeThreadRow(this.db.sql, "insert", { id, userId: principal.userId, ...threadValues(input, this.limits) });
    this.relay.wake();
    return await this.db.prisma.thread.findUniqueOrThrow({ ...query, where: { id } });
  }

  get(principal: Principal, id: string, query: ThreadQuery = {}): Promise<Thread | null> {
    if (!isUuid(id)) return Promise.resolve(null);
    return this.db.prisma.thread.findFirst({ ...query, where: { id, userId: principal.userId } });
  }

  async list(
    principal: Principal,
    status: ThreadStatus | null | undefined,
    limit: number | null | undefined,
    offset: number | null | undefined,
    query: ThreadQuery = {},
  ): Promise<PageOf<Thread>> {
    const page = checkPage(limit, offset, DEFAULT_THREAD_LIMIT);
    const where: Prisma.ThreadWhereInput = { userId: principal.userId, ...(status ? { status } : {}) };
    const [items, total] = await Promise.all([
      this.db.prisma.thread.findMany({ ...query, where, orderBy: newestFirst, take: readAhead(page), skip: page.offset }),
      this.db.prisma.thread.count({ where }),
    ]);
    return pageFrom(items, total, page);
  }

  /** Partial: what is not given is kept; a null description clears it. */
  async update(principal: Principal, id: string, input: ThreadInput, query: ThreadQuery = {}): Promise<Thread> {
    if (!isUuid(id)) throw notFound("Thread");
    // each column sent, as SQL sets it (its value a parameter)
    const columns: [column: string, type: string, value: unknown][] = [];
    if (input.title !== undefined) {
      if (input.title === null) throw invalid("title", "cannot be null");
      columns.push(["title", "text", checkText("title", input.title, MAX_TITLE_CHARS)]);
    }
    if (input.description !== undefined) {
      columns.push(["description", "text", input.description === null ? null : checkText("description", input.description, MAX_DESCRIPTION_CHARS)]);
    }
    if (input.metadata !== undefined) columns.push(["metadata", "jsonb", JSON.stringify(checkMetadata(input.metadata ?? {}, this.limits))]);
    if (input.status !== undefined) {
      if (input.status === null) throw invalid("status", "cannot be null");
      columns.push(["status", "thread_status", input.status]);
    }
    // nothing to change (nothing sent, or every field sent as it is): the thread as it is, no event, no new updatedAt.
    // In SQL rather than through Prisma, whose updatedAt is this process' clock before the row's lock (RISEN_UPDATED_AT)
    let written: WrittenThread | undefined;
    if (columns.length > 0) {
      const value = (i: number) => `$${i + 3}::${columns[i]![1]}`;
      [written] = await this.db.sql.query<WrittenThread>(
        `UPDATE threads SET ${columns.map(([column], i) => `${column} = ${value(i)}`).join(", ")}, updated_at = ${RISEN_UPDATED_AT}
          WHERE id = $1::uuid AND user_id = $2::uuid AND (${columns.map(([column], i) => `${column} IS DISTINCT FROM ${value(i)}`).join(" OR ")})
          RETURNING title, description, metadata, status, updated_at AS "updatedAt"`,
        [id, principal.userId, ...columns.map(([, , given]) => given)],
      );
      if (written) this.relay.wake();
    }
    // deleted since the update committed: answered as if the delete had come first
    const thread = await this.db.prisma.thread.findFirst({ ...query, where: { id, userId: principal.userId } });
    if (!thread) throw notFound("Thread");
    // its own columns as this update left them, not as a later one has since (its memory count is the thread's now)
    return written ? { ...thread, ...written, updatedAt: new Date(written.updatedAt) } : thread;
  }

  /**
   * Deletes a thread. Its memories are deleted too when asked, else kept without a thread; either way in the
   * same transaction as the thread, with their index work queued there.
   */
  async delete(principal: Principal, id: string, deleteMemories: boolean): Promise<void> {
    if (!isUuid(id)) throw notFound("Thread");
    // a large thread's memories go (or leave it) a slice at a time, each slice committed with its events and history:
    // in one transaction, 100 000 of them held the embedded database, which runs one statement at a time, for a
    // minute, every user's requests waiting (outside probe). The slice that finds the thread's last memories takes
    // the thread in its transaction; a delete cut short leaves the thread with the rest, to be deleted again.
    for (let last = false; !last; ) {
      const slice = await this.db.sql.transaction(async (sql) => {
        const memories = await this.takeOutMemories(sql, principal, id, deleteMemories);
        if (memories && memories.length < DELETE_SLICE) {
          last = true;
          await sql.query("DELETE FROM threads WHERE id = $1::uuid", [id]);
        }
        return memories;
      });
      if (!slice) throw notFound("Thread");
      await this.afterwards(principal, slice);
    }
  }

  /**
   * Deletes up to DELETE_SLICE of the thread's memories, or takes them out of it, with the thread locked; undefined
   * when the caller has no such thread. Returns the memories changed: fewer than DELETE_SLICE when none is left.
   */
  private async takeOutMemories(sql: Sql, principal: Principal, id: string, deleteMemories: boolean): Promise<string[] | undefined> {
    const [thread] = await sql.query("SELECT id FROM threads WHERE id = $1::uuid AND user_id = $2::uuid FOR UPDATE", [id, principal.userId]);
    if (!thread) return undefined;
    const picked = `picked AS (SELECT id FROM memories WHERE thread_id = $1::uuid AND user_id = $2::uuid LIMIT ${DELETE_SLICE})`;
    const scope = "user_id = $2::uuid AND id IN (SELECT id FROM picked)";
    // either way the memories' history names the key ($3). Kept, an expired memory (gone from every read) is not
    // released, which would announce it updated: it goes as the sweep would take it, under no key
    const changes = deleteMemories
      ? `changed AS (DELETE FROM memories WHERE ${scope} AND ${deletingKeySql("$3")} RETURNING id, user_id)`
      : `expired AS (DELETE FROM memories WHERE ${scope} AND expires_at <= now() RETURNING id, user_id),
         released AS (UPDATE memories SET thread_id = NULL, updated_at = ${RISEN_UPDATED_AT}, written_by_key = $3::uuid
            WHERE ${scope} AND (expires_at IS NULL OR expires_at > now()) RETURNING id, user_id),
         changed AS (SELECT id, user_id FROM expired UNION ALL SELECT id, user_id FROM released)`;
    const memories = await sql.query<{ memory_id: string }>(
      `WITH ${picked}, ${changes}
       INSERT INTO index_tasks (memory_id, user_id) SELECT id, user_id FROM changed RETURNING memory_id`,
      [id, principal.userId, principal.keyId],
    );
    return memories.map((row) => row.memory_id);
  }

  /** What follows a committed change to these memories: totals, the event relay, the index. */
  private async afterwards(principal: Principal, touched: string[]): Promise<void> {
    this.totals.changed(principal.userId, touched);
    this.relay.wake();
    await this.indexer.forWrite(this.indexer.flush(touched));
  }
}
