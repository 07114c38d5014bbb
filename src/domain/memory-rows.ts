import { setImmediate } from "node:timers/promises";
import type { Database, Sql } from "../db/database.ts";
import { packBytes, unpackSql } from "../db/packed-bytes.ts";
import type { Memory } from "../generated/prisma/client.ts";
import { contentKey } from "./content-key.ts";
import { insertTermsSql, LEXICAL_VERSION, termParams, termRows } from "./lexical.ts";
import type { MemoryValues } from "./memory-input.ts";

/** A memory about to be inserted. */
export interface NewMemory extends Omit<MemoryValues, "expiresAt"> {
  id: string;
  userId: string;
  embedding: Uint8Array | null;
  embedder: string | null;
  workspaceId?: string | null;
  legacyUserId?: string | null;
  /** The API key making the change, for the memory's history (none for rows written outside the API). */
  writtenByKey?: string | null;
  expiresAt?: Date | null;
  /** When the memory was made and last changed, kept by an import; now when absent. */
  createdAt?: Date | null;
  updatedAt?: Date | null;
}

const memoryColumns = (time: (column: string) => string) => `id, user_id AS "userId", content, data, type, tags, metadata,
  thread_id AS "threadId", is_archived AS "isArchived", workspace_id AS "workspaceId", legacy_user_id AS "legacyUserId",
  embedder, ${time("expires_at")} AS "expiresAt", ${time("created_at")} AS "createdAt", ${time("updated_at")} AS "updatedAt"`;

/** Every column but the embedding, named as Prisma names them. */
export const MEMORY_COLUMNS = memoryColumns((column) => column);

/**
 * MEMORY_COLUMNS for `json_agg` (memoriesFromJson): the times as milliseconds since 1970, since JSON would write
 * them in the session's time zone, whose historical offsets ("+00:17:30", " BC") Date cannot read (and as
 * numbers rather than event_time's UTC text, which cost a third of the statement).
 */
export const MEMORY_JSON_COLUMNS = memoryColumns((column) => `round(date_part('epoch', ${column}) * 1000)`);

/** A memory row read through `json_agg` of MEMORY_JSON_COLUMNS: its times come as milliseconds since 1970. */
type JsonMemoryRow = Omit<Memory, "embedding" | "createdAt" | "updatedAt" | "expiresAt"> & { createdAt: number; updatedAt: number; expiresAt: number | null };

/**
 * The memories of `json_agg` over rows of MEMORY_JSON_COLUMNS (null for none). One text field for all of them rather
 * than fifteen a row: the embedded database's protocol code parses (and copies) every field on its own, which for
 * a page of a search's rows cost more than the statement (bench/README.md, "Recall").
 */
export function memoriesFromJson(text: string | null): Memory[] {
  const rows = text === null ? [] : (JSON.parse(text) as JsonMemoryRow[]);
  return rows.map((row) => ({
    ...row,
    embedding: null,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
  }));
}

/** A memory as inserted, with the vector-index task queued for it (if any: TaskRule) and the embedding stored with it. */
export interface InsertedMemory {
  memory: Memory;
  taskId: string | null;
  embedding: Uint8Array | null;
}

/**
 * Which inserted memories queue a vector-index task with them: every one, or only those stored without a vector
 * (to be embedded later). The second is for an index that finds at start-up what it lacks of the database
 * (VectorIndex.reconcile): a memory stored with its vector cannot be lost to it by a crash before its index write,
 * so the task, written and read and deleted around every create, bought nothing (Indexer.taskRule).
 */
export type TaskRule = "every" | "unembedded";

/**
 * SQL true when `thread` names a thread of `user`, which it then locks as the foreign key check would (FOR KEY
 * SHARE) until the transaction ends: the check cannot go stale, and a concurrent delete of the thread either
 * waits for this transaction or has committed already (the row is then skipped, so the check says false).
 * Taken before any memory row, as the thread's delete takes its thread before its memories: no deadlock.
 */
const ownThreadSql = (thread: string, user: string) =>
  `EXISTS (SELECT 1 FROM threads WHERE threads.id = ${thread} AND threads.user_id = ${user} FOR KEY SHARE)`;

/** Whether `threadId` names a thread of the user, kept so until the caller's transaction ends (see ownThreadSql). */
export async function lockOwnThread(sql: Sql, userId: string, threadId: string): Promise<boolean> {
  const owned = `SELECT ${ownThreadSql("$1::uuid", "$2::uuid")} AS owned`;
  const [row] = await sql.query<{ owned: boolean }>(owned, [threadId, userId]);
  return row?.owned === true;
}

/**
 * Rows one statement inserts. The embedded database runs a statement in the server's own thread, about 0.2 ms a
 * memory with its terms, history and event: a 100-memory batch in one statement held every other request
 * (even /healthz) for 20 ms. Two statements of 50 in a transaction cost 15-25% more CPU than one of 100 (the
 * statements' and the transaction's fixed cost): the price of answering other requests in between.
 */
const ROWS_PER_STATEMENT = 50;

/**
 * Inserts memories with their lexical terms, and queues their vector-index work (as `tasks` says), in one
 * transaction, returning the rows (see insertMemoriesIn). A single statement where they fit in one.
 */
export async function insertMemories(db: Pick<Database, "sql">, memories: readonly NewMemory[], tasks: TaskRule): Promise<InsertedMemory[]> {
  if (memories.length <= ROWS_PER_STATEMENT) return insertMemoryRows(db.sql, memories, tasks);
  return db.sql.transaction((sql) => insertMemoriesIn(sql, memories, tasks));
}

/**
 * insertMemories within the caller's transaction: statements of ROWS_PER_STATEMENT rows, with a turn of the
 * event loop between them, so that requests that need no database are answered meanwhile.
 */
export async function insertMemoriesIn(sql: Sql, memories: readonly NewMemory[], tasks: TaskRule): Promise<InsertedMemory[]> {
  const inserted: InsertedMemory[] = [];
  for (let at = 0; at < memories.length; at += ROWS_PER_STATEMENT) {
    if (at > 0) await setImmediate();
    inserted.push(...(await insertMemoryRows(sql, memories.slice(at, at + ROWS_PER_STATEMENT), tasks)));
  }
  return inserted;
}

/**
 * One statement. A memory whose thread is not one of its user's threads (or no longer is: the check is made in
 * the statement, see ownThreadSql) is left out, and absent from the result. Written in SQL rather than through
 * Prisma because it is the hottest write: Prisma's transaction, insert and read-back cost three times as much
 * on the embedded database.
 */
async function insertMemoryRows(sql: Sql, memories: readonly NewMemory[], tasks: TaskRule): Promise<InsertedMemory[]> {
  if (memories.length === 0) return [];
  const embeddings = packBytes(memories.map((m) => m.embedding));
  const rows = memories.map((m, i) => ({
    n: i + 1,
    at: embeddings.at[i],
    len: embeddings.len[i],
    id: m.id,
    user_id: m.userId,
    content: m.content,
    content_key: contentKey(m.content, m.data !== null),
    data: m.data,
    type: m.type,
    tags: m.tags,
    metadata: m.metadata,
    thread_id: m.threadId,
    is_archived: m.isArchived,
    workspace_id: m.workspaceId ?? null,
    legacy_user_id: m.legacyUserId ?? null,
    embedder: m.embedder,
    written_by_key: m.writtenByKey ?? null,
    expires_at: m.expiresAt ?? null,
    ttl_ms: m.ttlMs ?? null,
    created_at: m.createdAt?.toISOString() ?? null,
    updated_at: m.updatedAt?.toISOString() ?? null,
  }));
  const inserted = await sql.query<Omit<Memory, "embedding"> & { taskId: string | bigint | null }>(
    `WITH x AS (
       SELECT r.*, ${unpackSql("$2::bytea", "r.at", "r.len")} AS embedding
         FROM jsonb_to_recordset($1::jsonb) AS r(n bigint, at int, len int, id uuid, user_id uuid, content text,
                content_key text, data jsonb, type text, tags text[], metadata jsonb, thread_id uuid, is_archived boolean,
                workspace_id text, legacy_user_id text, embedder text, written_by_key uuid, expires_at timestamptz,
                ttl_ms bigint, created_at timestamptz, updated_at timestamptz)),
     m AS (
       INSERT INTO memories (id, user_id, content, content_key, data, type, tags, metadata, thread_id, is_archived,
                             workspace_id, legacy_user_id, embedding, embedder, written_by_key, expires_at, lexical_version,
                             created_at, updated_at)
       SELECT id, user_id, content, content_key, data, type, tags, metadata, thread_id, is_archived, workspace_id,
              legacy_user_id, embedding, embedder, written_by_key,
              CASE WHEN ttl_ms IS NULL THEN expires_at ELSE coalesce(created_at, now()) + ttl_ms * interval '1 millisecond' END, $6, coalesce(created_at, now()),
              coalesce(updated_at, now())
         FROM x WHERE thread_id IS NULL OR ${ownThreadSql("x.thread_id", "x.user_id")} ORDER BY n
       RETURNING ${MEMORY_COLUMNS}),
     t AS (INSERT INTO index_tasks (memory_id, user_id) SELECT "id", "userId" FROM m WHERE $7 OR embedder IS NULL
           RETURNING id, memory_id),
     stored AS (SELECT n, id, user_id FROM x WHERE id IN (SELECT "id" FROM m)),
     terms AS (${insertTermsSql(3, "stored")})
     SELECT m.*, t.id AS "taskId" FROM m LEFT JOIN t ON t.memory_id = m.id`,
    [JSON.stringify(rows), embeddings.blob, ...termParams(termRows(memories)), LEXICAL_VERSION, tasks === "every"],
  );
  const byId = new Map(inserted.map(({ taskId, ...row }) => [row.id, { row, taskId: taskId === null ? null : String(taskId) }]));
  return memories.flatMap((m) => {
    const stored = byId.get(m.id);
    if (!stored) return [];
    // the embedding is left out of the memory callers get; Prisma's Memory type has it, so it is said to be null
    return [{ memory: { ...stored.row, embedding: null }, taskId: stored.taskId, embedding: m.embedding }];
  });
}

/** A memory's vector columns: the embedding and the embedder that made it (both null: none yet). */
export interface EmbeddingColumns {
  embedding: Uint8Array | null;
  embedder: string | null;
}

/** What an update may change: the writable fields, and the columns made from the content. */
export interface MemoryChanges extends Partial<MemoryValues> {
  embedding?: Uint8Array | null;
  embedder?: string | null;
  lexicalVersion?: number;
  writtenByKey?: string | null;
  /** An import's times of the record (else created_at stays and updated_at is now). */
  createdAt?: Date;
  updatedAt?: Date;
}

/** A record's times as an import keeps them. */
export type RecordTimes = Pick<MemoryChanges, "createdAt" | "updatedAt">;

const COLUMNS: Record<Exclude<keyof MemoryChanges, "ttlMs">, [column: string, type: string, json?: boolean]> = {
  content: ["content", "text"],
  data: ["data", "jsonb", true],
  type: ["type", "text"],
  tags: ["tags", "text[]"],
  metadata: ["metadata", "jsonb", true],
  threadId: ["thread_id", "uuid"],
  isArchived: ["is_archived", "boolean"],
  expiresAt: ["expires_at", "timestamptz"],
  embedding: ["embedding", "bytea"],
  embedder: ["embedder", "text"],
  lexicalVersion: ["lexical_version", "smallint"],
  writtenByKey: ["written_by_key", "uuid"],
  createdAt: ["created_at", "timestamptz"],
  updatedAt: ["updated_at", "timestamptz"],
};

/** The columns the API shows of a memory: a write that leaves them all as they were changes nothing. */
const SHOWN: readonly Exclude<keyof MemoryChanges, "ttlMs">[] = [
  "content",
  "data",
  "type",
  "tags",
  "metadata",
  "threadId",
  "isArchived",
  "expiresAt",
  "createdAt",
  "updatedAt",
];

/**
 * A changed row's updated_at: the database's clock as the row is written, after any wait for its lock, and at least
 * a millisecond past the time it had. now() is the time its transaction began, so a change that waited for a
 * concurrent one committed after it with an earlier time, and a receiver that keeps the latest updated_at (as
 * docs/API.md advises) kept the older state. For memories and threads alike.
 */
export const RISEN_UPDATED_AT = "greatest(clock_timestamp(), updated_at + interval '1 millisecond')";

/**
 * Sets the changed columns of one memory (and updated_at), inside the caller's transaction, unless every shown
 * column it sets holds that value already: a PUT or PATCH that sends the memory back as it is writes nothing (no
 * version, no event, the same updated_at). Answers the memory as written, or undefined when it wrote nothing: read
 * under the write's lock, so a write's answer is its own, whatever others write once it has committed. A change the
 * API shows names its key (writtenByKey), which the memory's history records.
 */
export async function updateColumns(sql: Sql, id: string, changes: MemoryChanges): Promise<Memory | undefined> {
  const { ttlMs, ...columns } = changes;
  // the expiry dated from the change's own time (MemoryValues.ttlMs), one reading of the clock for both; an import
  // keeps its record's times
  const dated = ttlMs !== undefined && changes.expiresAt !== undefined && changes.updatedAt === undefined;
  const params: unknown[] = [id];
  const sets: string[] = [];
  if (dated) {
    params.push(ttlMs);
    sets.push(`(updated_at, expires_at) = (SELECT t, t + $${params.length}::bigint * interval '1 millisecond' FROM (SELECT ${RISEN_UPDATED_AT} AS t) AS now_)`);
  } else if (changes.updatedAt === undefined) {
    sets.push(`updated_at = ${RISEN_UPDATED_AT}`);
  }
  const differs: string[] = [];
  if (changes.content !== undefined) {
    params.push(contentKey(changes.content, changes.data != null));
    sets.push(`content_key = $${params.length}::text`);
  }
  for (const [field, value] of Object.entries(columns) as [Exclude<keyof MemoryChanges, "ttlMs">, unknown][]) {
    if (value === undefined) continue;
    if (field === "expiresAt" && dated) {
      differs.push("true"); // a new expiry, set above
      continue;
    }
    const [column, type, json] = COLUMNS[field];
    params.push(json && value !== null ? JSON.stringify(value) : value instanceof Date ? value.toISOString() : value);
    sets.push(`${column} = $${params.length}::${type}`);
    if (SHOWN.includes(field)) differs.push(`${column} IS DISTINCT FROM $${params.length}::${type}`);
  }
  const unlessSame = differs.length > 0 ? ` AND (${differs.join(" OR ")})` : "";
  const [written] = await sql.query<{ memory: string | null }>(
    `WITH w AS (UPDATE memories SET ${sets.join(", ")} WHERE id = $1::uuid${unlessSame} RETURNING *)
     SELECT (SELECT json_agg(m)::text FROM (SELECT ${MEMORY_JSON_COLUMNS} FROM w) m) AS memory`,
    params,
  );
  return memoriesFromJson(written?.memory ?? null)[0];
}

/**
 * SQL that names the API key deleting memories in the statement it is part of, for their history (a deleted
 * row has no column to carry it): a transaction-local setting the delete trigger reads. `key` is a parameter.
 */
export const deletingKeySql = (key: string) => `(SELECT set_config('memory_service.key_id', ${key}::text, true)) IS NOT NULL`;
