import { invalid } from "../errors.ts";
import type { Sql } from "../db/database.ts";
import { unexpiredSql } from "./expiry.ts";
import { isUuid } from "./ids.ts";
import type { Counted } from "./list-totals.ts";
import { checkMemoryFilter, type MemoryFilterInput } from "./memory-filter.ts";
import { filterSql } from "../vectors/filter-sql.ts";
import { isStorableInstant } from "../vectors/iso-instant.ts";

/** The filter of a list, as the memory service takes it (checked here). */
export interface ListFilter extends MemoryFilterInput {
  isArchived?: boolean | null;
  /** Only for the deprecated workspace-scoped listing. */
  workspaceId?: string | null;
}

/** A list's WHERE clause over the memories table and its parameters, the user first. */
export interface Matching {
  where: string;
  params: unknown[];
}

export function matching(userId: string, filter: ListFilter): Matching {
  const { isArchived, workspaceId, ...rest } = filter;
  const clause = checkMemoryFilter(rest);
  const params: unknown[] = [userId];
  const conditions = ["user_id = $1::uuid", unexpiredSql(), ...(clause ? [filterSql(clause, params)] : [])];
  if (isArchived != null) conditions.push(`is_archived = $${params.push(isArchived)}`);
  if (workspaceId != null) conditions.push(`workspace_id = $${params.push(workspaceId)}`);
  return { where: conditions.join(" AND "), params };
}

/** Where a page of a newest-first list begins or ends: the memory next to it, by creation time and then id. */
interface Position {
  createdAt: string;
  id: string;
}

/** An opaque cursor: a position in the newest-first order, which inserts elsewhere in the list do not move. */
export function cursorOf(memory: { createdAt: Date; id: string }): string {
  return Buffer.from(`${memory.createdAt.toISOString()}|${memory.id}`).toString("base64url");
}

/** Whether `text` is a cursor this service made (its place in a list may since have gone; that is no error). */
export function isCursor(text: string): boolean {
  try {
    positionOf(text, "cursor");
    return true;
  } catch {
    return false;
  }
}

function positionOf(cursor: string, field: string): Position {
  const [createdAt = "", id = "", ...rest] = Buffer.from(cursor, "base64url").toString().split("|");
  // a cursor this service made holds a stored instant, as toISOString wrote it; another one (a day the month does
  // not have, which Date.parse takes) would fail the statement it reached
  const ms = Date.parse(createdAt);
  if (rest.length > 0 || !isUuid(id) || !isStorableInstant(ms) || new Date(ms).toISOString() !== createdAt) {
    throw invalid(field, "is not a cursor of this list");
  }
  return { createdAt, id };
}

export interface CursorWindow {
  after?: string | undefined;
  before?: string | undefined;
  limit: number;
  /** Read from the end: the rows nearest `before` first (Relay's `last`). */
  inverted: boolean;
}

/** The ids of one window of a newest-first list, in the order asked for (nearest the cursor first). */
export async function idsInWindow(sql: Sql, { where, params }: Matching, window: CursorWindow): Promise<string[]> {
  const all = [...params];
  const conditions = [where];
  // newer than `before` and older than `after`: rows compare on (created_at, id) as the order does
  const bound = (cursor: string, field: string, comparison: "<" | ">") => {
    const { createdAt, id } = positionOf(cursor, field);
    all.push(createdAt, id);
    conditions.push(`(created_at, id) ${comparison} ($${all.length - 1}::timestamptz, $${all.length}::uuid)`);
  };
  if (window.after !== undefined) bound(window.after, "after", "<");
  if (window.before !== undefined) bound(window.before, "before", ">");
  const direction = window.inverted ? "ASC" : "DESC";
  const rows = await sql.query<{ id: string }>(
    `SELECT id FROM memories WHERE ${conditions.join(" AND ")} ORDER BY created_at ${direction}, id ${direction} LIMIT ${window.limit}`,
    all,
  );
  return rows.map((row) => row.id);
}

/** The ids of one page of a newest-first list, by offset. */
export async function idsInPage(sql: Sql, { where, params }: Matching, limit: number, offset: number): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `SELECT id FROM memories WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    params,
  );
  return rows.map((row) => row.id);
}

export async function countMatching(sql: Sql, { where, params }: Matching): Promise<Counted> {
  const [row] = await sql.query<CountRow>(`SELECT count(*) AS n, min(expires_at) AS next FROM memories WHERE ${where}`, params);
  return countedOf(row);
}

/** A count and the next expiry, as the database answers them (bigint as a number, bigint or text by driver). */
interface CountRow {
  n: number | bigint | string;
  next: Date | string | null;
}

const countedOf = (row: CountRow | undefined): Counted => ({
  total: Number(row?.n ?? 0),
  nextExpiry: row?.next == null ? null : new Date(row.next),
});

/**
 * The total of a user's whole list (no filter): the count the triggers on memories keep (migration
 * memory_counts), less the user's memories past their expiry that the sweeper has not deleted yet; with the next
 * of the user's memories to expire (both by the index on the user and the expiry). Counting the rows
 * (countMatching) scans all of the user's: on PostgreSQL, where no process can keep a total between requests
 * (another may write meanwhile), 13 ms a list at 20 000 memories.
 */
export async function countWholeList(sql: Sql, userId: string): Promise<Counted> {
  const [row] = await sql.query<CountRow>(
    `SELECT coalesce((SELECT count FROM memory_counts WHERE user_id = $1::uuid), 0)
            - (SELECT count(*) FROM memories WHERE user_id = $1::uuid AND expires_at <= now()) AS n,
            (SELECT min(expires_at) FROM memories WHERE user_id = $1::uuid AND expires_at > now()) AS next`,
    [userId],
  );
  return countedOf(row);
}
