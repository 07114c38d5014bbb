import type { Principal } from "./principal.ts";
import type { Database } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import { isUuid } from "./ids.ts";
import type { JsonObject } from "./json.ts";
import { checkPage, pageOf, type PageOf } from "./paging.ts";
import { PeriodicChore } from "./periodic-chore.ts";

export const DEFAULT_HISTORY_LIMIT = 20;
const PURGE_EVERY_MS = 60 * 60_000;

/** One change to a memory, as the triggers on memories record it (see the memory_history migration). */
export interface MemoryVersion {
  version: number;
  /** created, updated, archived, unarchived or deleted. */
  action: string;
  changedAt: Date;
  /** The API key that made the change, and its name (never its secret); null for changes made outside the API. */
  keyId: string | null;
  keyName: string | null;
  /** The memory as GraphQL shows it, before and after the change (null before a create and after a delete). */
  before: JsonObject | null;
  after: JsonObject | null;
}

/** A version with its key and, for its `after`, the memory as it is now. */
const VERSIONS = `FROM memory_versions v LEFT JOIN api_keys k ON k.id = v.key_id AND k.user_id = v.user_id
                    LEFT JOIN memories m ON m.id = v.memory_id AND m.user_id = v.user_id`;
/**
 * A version's `after`, over VERSIONS and a window `w` of the memory's versions in order: rows written since the
 * memory_versions_after_derived migration do not store it, as it is the next version's `before`, or for the newest
 * the memory now (every change the API shows writes a version); rows written before hold theirs.
 */
const AFTER = `CASE WHEN v.action = 'deleted' THEN NULL
                    WHEN v.after IS NOT NULL THEN v.after
                    WHEN lead(v.version) OVER w IS NOT NULL THEN lead(v.before) OVER w
                    WHEN m.id IS NOT NULL THEN memory_event_data(m) END`;

interface VersionRow extends Omit<MemoryVersion, "version"> {
  version: number | bigint;
  total: number | bigint;
}

/**
 * A memory's history, newest first, for its owner: kept after the memory is deleted until `retentionDays` have
 * passed since the delete, then purged.
 */
export class HistoryService {
  private readonly purging: PeriodicChore;

  constructor(
    private readonly db: Database,
    private readonly retentionDays: number,
    logger: Logger,
  ) {
    this.purging = new PeriodicChore(() => this.purge(), PURGE_EVERY_MS, logger, {
      done: "purged the history of memories deleted long ago",
      failed: "could not purge old memory history; trying again later",
    });
  }

  async list(principal: Principal, memoryId: string, limit?: number | null, offset?: number | null): Promise<PageOf<MemoryVersion>> {
    const page = checkPage(limit, offset, DEFAULT_HISTORY_LIMIT);
    if (!isUuid(memoryId)) return pageOf([], 0, page);
    const rows = await this.db.sql.query<VersionRow>(
      `SELECT v.version, v.action, v.changed_at AS "changedAt", v.key_id AS "keyId", k.name AS "keyName", v.before, ${AFTER} AS after,
              count(*) OVER () AS total
         ${VERSIONS}
        WHERE v.memory_id = $1::uuid AND v.user_id = $2::uuid
       WINDOW w AS (PARTITION BY v.memory_id ORDER BY v.version)
        ORDER BY v.version DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
      [memoryId.toLowerCase(), principal.userId],
    );
    const total = rows[0] ? Number(rows[0].total) : await this.count(principal, memoryId);
    return pageOf(
      rows.map(({ total: _, version, changedAt, ...row }) => ({ ...row, version: Number(version), changedAt: new Date(changedAt) })),
      total,
      page,
    );
  }

  /** The whole history of each of these memories of the user's, oldest version first (an export's). */
  async versionsOf(userId: string, memoryIds: readonly string[]): Promise<Map<string, MemoryVersion[]>> {
    const rows = await this.db.sql.query<Omit<VersionRow, "total"> & { memoryId: string }>(
      `SELECT v.memory_id AS "memoryId", v.version, v.action, v.changed_at AS "changedAt", v.key_id AS "keyId",
              k.name AS "keyName", v.before, ${AFTER} AS after
         ${VERSIONS}
        WHERE v.memory_id = ANY($1::uuid[]) AND v.user_id = $2::uuid
       WINDOW w AS (PARTITION BY v.memory_id ORDER BY v.version)
        ORDER BY v.memory_id, v.version`,
      [memoryIds, userId],
    );
    const byMemory = new Map<string, MemoryVersion[]>(memoryIds.map((id) => [id, []]));
    for (const { memoryId, version, changedAt, ...row } of rows) {
      byMemory.get(memoryId)?.push({ ...row, version: Number(version), changedAt: new Date(changedAt) });
    }
    return byMemory;
  }

  /** Past the last page the window count is gone: counted on its own. */
  private async count(principal: Principal, memoryId: string): Promise<number> {
    const [row] = await this.db.sql.query<{ n: number | bigint }>(
      "SELECT count(*) AS n FROM memory_versions WHERE memory_id = $1::uuid AND user_id = $2::uuid",
      [memoryId.toLowerCase(), principal.userId],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Of these ids, those whose history another user than `userId` keeps (a memory of theirs deleted less than
   * retentionDays ago): the id is still theirs, so that an import of their export can restore the memory, and
   * their history never goes on under someone else's record.
   */
  async heldByOthers(userId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.sql.query<{ id: string }>(
      `SELECT DISTINCT memory_id AS id FROM memory_versions
        WHERE memory_id = ANY($1::uuid[]) AND user_id <> $2::uuid AND changed_at >= now() - $3 * interval '1 day'`,
      [ids, userId, this.retentionDays],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Removes the history of memories deleted more than retentionDays ago; answers how many versions went. */
  async purge(): Promise<number> {
    const [row] = await this.db.sql.query<{ n: number | bigint }>(
      // a user's history of an id ends at its last version: one stored again under the id since (an import of its
      // export) goes on from that delete, and another user's memory may take the id; neither is purged with it
      `WITH ended AS (
         SELECT d.memory_id, d.user_id FROM memory_versions d
          WHERE d.action = 'deleted' AND d.changed_at < now() - $1 * interval '1 day'
            AND NOT EXISTS (SELECT 1 FROM memory_versions l WHERE l.memory_id = d.memory_id AND l.version > d.version AND l.user_id = d.user_id)
       ), gone AS (
         DELETE FROM memory_versions v USING ended e WHERE v.memory_id = e.memory_id AND v.user_id = e.user_id
         RETURNING 1)
       SELECT count(*) AS n FROM gone`,
      [this.retentionDays],
    );
    return Number(row?.n ?? 0);
  }

  /** Purges now and every hour, until stopped. */
  start(): void {
    this.purging.start();
  }

  stop(): Promise<void> {
    return this.purging.stop();
  }
}
