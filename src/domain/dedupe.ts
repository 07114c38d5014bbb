import { createHash } from "node:crypto";
import type { DedupeSettings } from "../config.ts";
import type { Database, Sql } from "../db/database.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import type { Memory } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import { cosine, storedToVector } from "../vectors/codec.ts";
import { contentKey, KEY_VERSION } from "./content-key.ts";
import { unexpiredSql } from "./expiry.ts";
import { insertMemoriesIn, MEMORY_COLUMNS, type InsertedMemory, type NewMemory, type TaskRule } from "./memory-rows.ts";

/**
 * The duplicate guard: a create asked to deduplicate (or under the server's DEDUPE) that finds a memory of the
 * same user with the same normalised content, type and thread (`exact`), or in `near` mode one whose vector is
 * at least DEDUPE_NEAR_SIMILARITY (cosine) from the new text's, answers that memory instead of storing a second
 * copy. Archived and expired memories do not count: re-creating one means wanting it live again. A create kept
 * for good is answered only by a memory kept for good (one that expires would take the caller's memory with it);
 * a create that expires, by the duplicate that lives longest. In near mode a record never answers a text, nor a
 * text a record.
 */
export type DedupeMode = DedupeSettings["mode"];

const BACKFILL_BATCH = 500;
// what a duplicate must be: one of the user's memories the guard may answer with
const LIVE = `NOT is_archived AND ${unexpiredSql()}`;

/** What a create asks for (`dedupe`), under the server's mode: false never deduplicates, true at least exactly. */
export function dedupeModeOf(requested: boolean | null | undefined, server: DedupeMode): DedupeMode {
  if (requested == null) return server;
  if (!requested) return "off";
  return server === "near" ? "near" : "exact";
}

/** A memory to store, with how it is to be deduplicated and (near mode) the vector of its content. */
export interface Candidate {
  row: NewMemory;
  mode: DedupeMode;
  vector?: Float32Array;
}

/** Per candidate, in order: stored, found already stored (`duplicate`), or left out (its thread is not the user's). */
export type Placement = { stored: InsertedMemory } | { duplicate: Memory } | { leftOut: true };

interface Scope {
  key: string;
  type: string | null;
  threadId: string | null;
  structured: boolean;
}

type Group = Pick<Scope, "type" | "threadId" | "structured">;

const scopeOf = (row: NewMemory): Scope => ({
  key: contentKey(row.content, row.data !== null),
  type: row.type,
  threadId: row.threadId,
  structured: row.data !== null,
});
const sameScope = (a: Scope, b: Scope) => a.key === b.key && sameGroup(a, b);
const sameGroup = (a: Group, b: Group) => a.type === b.type && a.threadId === b.threadId && a.structured === b.structured;

/** Whether a memory expiring at `expiresAt` may answer a create that asks for `wanted` (null: kept for good). */
const answers = (expiresAt: Date | null | undefined, wanted: Date | null | undefined): boolean => expiresAt == null || wanted != null;

/** How long a memory lives, for the choice among duplicates: for good first, then the latest expiry. */
const lifetime = (expiresAt: Date | null | undefined): number => expiresAt?.getTime() ?? Infinity;

/** What the memory service deduplicates its creates with: the settings, and the embedder near mode compares by. */
export class DuplicateGuard {
  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly logger: Logger,
    readonly settings: DedupeSettings,
  ) {}

  /** How a create that asks for `requested` is deduplicated here. */
  modeOf(requested: boolean | null | undefined): DedupeMode {
    return dedupeModeOf(requested, this.settings.mode);
  }

  /**
   * The vectors near mode compares new texts by, when the write has not made them (a background embedder): the
   * embedder's, at a query's priority, as the create waits for them. None when it fails: the exact rule still holds.
   */
  async vectors(texts: readonly string[]): Promise<Float32Array[] | undefined> {
    if (texts.length === 0) return [];
    try {
      return await this.embedder.embed(texts, "interactive");
    } catch (error) {
      this.logger.warn({ err: error, embedder: this.embedder.id }, "embedding for the near-duplicate check failed; only exact duplicates are caught");
      return undefined;
    }
  }

  /** `tasks`: which stored rows queue index work (TaskRule). */
  store(candidates: readonly Candidate[], tasks: TaskRule): Promise<Placement[]> {
    return insertDeduplicated(this.db, this.embedder.id, this.settings, candidates, tasks);
  }
}

/**
 * Stores candidates of one user, each unless the guard finds its duplicate among the user's memories or the
 * candidates before it. One transaction: a transaction-scoped advisory lock per content key (and, in near mode,
 * one per user, since near duplicates share no key) is taken before looking, so of two identical creates at
 * once the second looks after the first has committed and finds it. Near duplicates are looked for in the
 * database, not the vector index, which is updated after the commit (and, with a background embedder, later).
 */
async function insertDeduplicated(
  db: Database,
  embedderId: string,
  settings: DedupeSettings,
  candidates: readonly Candidate[],
  tasks: TaskRule,
): Promise<Placement[]> {
  const userId = candidates[0]!.row.userId;
  const scopes = candidates.map((candidate) => scopeOf(candidate.row));
  return db.sql.transaction(async (sql) => {
    const guarded = candidates.flatMap((candidate, i) => (candidate.mode === "off" ? [] : [scopes[i]!]));
    const near = candidates.some((candidate) => candidate.mode === "near");
    await lock(sql, userId, near, guarded.map((scope) => scope.key));
    const exact = await exactMatches(sql, userId, [...new Set(guarded.map((scope) => scope.key))]);
    const nearby = near ? await nearMatches(sql, userId, embedderId, settings, candidates, scopes) : new Map<number, string>();
    const decided: Decision[] = [];
    const rows: NewMemory[] = [];
    candidates.forEach((candidate, i) => {
      const lasts = (expiresAt: Date | null | undefined) => answers(expiresAt, candidate.row.expiresAt);
      const earlier = (match: (j: number) => boolean) =>
        decided.findIndex((d, j) => "row" in d && lasts(candidates[j]!.row.expiresAt) && match(j));
      const same = exact.filter((memory) => sameScope(scopes[i]!, memory) && lasts(memory.expiresAt));
      // the oldest of those that live longest (exact is oldest first, and the sort keeps that order among ties)
      const longest = same.sort((a, b) => lifetime(b.expiresAt) - lifetime(a.expiresAt))[0];
      const duplicate = candidate.mode === "off" ? undefined : findDuplicate(candidate, {
        existing: longest?.id ?? nearby.get(i),
        twin: earlier((j) => sameScope(scopes[i]!, scopes[j]!)),
        close: (vector) => earlier((j) => sameGroup(scopes[i]!, scopes[j]!) && isClose(vector, candidates[j]!.vector, settings)),
      });
      decided.push(duplicate ?? { row: rows.push(candidate.row) - 1 });
    });
    const stored = new Map((await insertMemoriesIn(sql, rows, tasks)).map((inserted) => [inserted.memory.id, inserted]));
    const found = await memoriesById(sql, decided.flatMap((d) => ("memoryId" in d ? [d.memoryId] : [])));
    const placed = (d: Decision): Placement => {
      if ("memoryId" in d) return { duplicate: found.get(d.memoryId)! };
      if ("candidate" in d) {
        const target = placed(decided[d.candidate]!);
        return "stored" in target ? { duplicate: target.stored.memory } : target;
      }
      const inserted = stored.get(rows[d.row]!.id);
      return inserted ? { stored: inserted } : { leftOut: true };
    };
    return decided.map(placed);
  });
}

/** Stored as the rows' index, or a duplicate of a memory or of an earlier candidate (which is stored). */
type Decision = { row: number } | { memoryId: string } | { candidate: number };

/**
 * The duplicate of a candidate, in this order: the user's memory with the same content (or, in near mode, the
 * nearest one close enough), an earlier candidate with the same content, an earlier one close enough (near mode).
 */
function findDuplicate(
  candidate: Candidate,
  found: { existing: string | undefined; twin: number; close: (vector: Float32Array) => number },
): Decision | undefined {
  if (found.existing) return { memoryId: found.existing };
  if (found.twin >= 0) return { candidate: found.twin };
  const close = candidate.mode === "near" && candidate.vector ? found.close(candidate.vector) : -1;
  return close >= 0 ? { candidate: close } : undefined;
}

const isClose = (vector: Float32Array, other: Float32Array | undefined, settings: DedupeSettings) =>
  other !== undefined && cosine(vector, other) >= settings.nearSimilarity;

/** Locks in one order (the user's, then keys sorted), so that two creates never wait for each other's. */
async function lock(sql: Sql, userId: string, wholeUser: boolean, keys: readonly string[]): Promise<void> {
  const names = [...new Set(keys)].sort().map((key) => `${userId} ${key}`);
  if (wholeUser) names.unshift(`${userId} near`);
  if (names.length === 0) return;
  await sql.query("SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k", [names.map(lockId)]);
}

/** A 64-bit advisory lock id for a name (a hash: two names sharing one only wait for each other). */
function lockId(name: string): string {
  return createHash("sha256").update(name).digest().readBigInt64BE(0).toString();
}

/** The user's live memories with these content keys, oldest first (the first copy is the one answered). */
function exactMatches(sql: Sql, userId: string, keys: readonly string[]): Promise<(Scope & { id: string; expiresAt: Date | null })[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return sql.query(
    `SELECT id, content_key AS key, type, thread_id AS "threadId", data IS NOT NULL AS structured, expires_at AS "expiresAt" FROM memories
      WHERE user_id = $1::uuid AND content_key = ANY($2::text[]) AND ${LIVE}
      ORDER BY created_at, id`,
    [userId, keys],
  );
}

/**
 * For each near-mode candidate with a vector: the user's memory of the same type, thread and kind (text or record)
 * nearest to it that may answer it (`answers`), when at least `nearSimilarity` close. Compares the stored vectors of the newest `nearScanMax` such memories; a
 * memory whose vector has not been made yet (background embedder) is found by the exact rule only.
 */
async function nearMatches(
  sql: Sql,
  userId: string,
  embedderId: string,
  settings: DedupeSettings,
  candidates: readonly Candidate[],
  scopes: readonly Scope[],
): Promise<Map<number, string>> {
  const groups = new Map<string, number[]>();
  candidates.forEach((candidate, i) => {
    if (candidate.mode !== "near" || !candidate.vector) return;
    const group = JSON.stringify([scopes[i]!.type, scopes[i]!.threadId, scopes[i]!.structured]);
    groups.set(group, [...(groups.get(group) ?? []), i]);
  });
  const matches = new Map<number, string>();
  for (const members of groups.values()) {
    const { type, threadId, structured } = scopes[members[0]!]!;
    const rows = await sql.query<{ id: string; embedding: Uint8Array; expiresAt: Date | null }>(
      `SELECT id, embedding, expires_at AS "expiresAt" FROM memories
        WHERE user_id = $1::uuid AND type IS NOT DISTINCT FROM $2::text AND thread_id IS NOT DISTINCT FROM $3::uuid
          AND (data IS NOT NULL) = $6 AND ${LIVE} AND embedder = $4 AND embedding IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [userId, type, threadId, embedderId, settings.nearScanMax, structured],
    );
    const vectors = rows.map((row) => ({ id: row.id, vector: storedToVector(row.embedding), expiresAt: row.expiresAt }));
    for (const i of members) {
      let best: { id: string; score: number } | undefined;
      for (const { id, vector, expiresAt } of vectors) {
        if (!answers(expiresAt, candidates[i]!.row.expiresAt)) continue;
        const score = cosine(candidates[i]!.vector!, vector);
        if (score >= settings.nearSimilarity && (!best || score > best.score)) best = { id, score };
      }
      if (best) matches.set(i, best.id);
    }
  }
  return matches;
}

async function memoriesById(sql: Sql, ids: readonly string[]): Promise<Map<string, Memory>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.query<Omit<Memory, "embedding">>(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ANY($1::uuid[])`, [[...new Set(ids)]]);
  return new Map(rows.map((row) => [row.id, { ...row, embedding: null }]));
}

/** Makes the content key of memories that have none (written before the guard) or one of an older version. */
export async function backfillContentKeys(db: Database, logger: Logger): Promise<number> {
  let total = 0;
  for (let after = "00000000-0000-0000-0000-000000000000"; ; ) {
    const rows = await db.sql.query<{ id: string; content: string; structured: boolean }>(
      `SELECT id, content, data IS NOT NULL AS structured FROM memories
        WHERE id > $1::uuid AND (content_key IS NULL OR content_key NOT LIKE $2) ORDER BY id LIMIT $3`,
      [after, `${KEY_VERSION}:%`, BACKFILL_BATCH],
    );
    if (rows.length === 0) break;
    // only where the content is still the one read: a rewrite meanwhile made its own key
    await db.sql.query(
      `UPDATE memories m SET content_key = x.key FROM unnest($1::uuid[], $2::text[], $3::text[]) AS x(id, key, content)
        WHERE m.id = x.id AND m.content = x.content`,
      [rows.map((r) => r.id), rows.map((r) => contentKey(r.content, r.structured)), rows.map((r) => r.content)],
    );
    total += rows.length;
    after = rows[rows.length - 1]!.id;
  }
  if (total > 0) logger.info({ memories: total }, "made the duplicate guard's content keys of memories that had none");
  return total;
}
