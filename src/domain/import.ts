import type { Thread } from "../generated/prisma/client.ts";
import { WritingService } from "./writing-service.ts";
import { AppError, invalid } from "../errors.ts";
import type { StoredEmbedding } from "./export.ts";
import type { ExpirySweeper } from "./expiry-sweeper.ts";
import type { HistoryService } from "./history.ts";
import { isUuid, newId } from "./ids.ts";
import { canonicalJson, type JsonValue } from "./json.ts";
import { completeValues, unknownThread, type MemoryInput, type MemoryValues } from "./memory-input.ts";
import { insertMemories, type EmbeddingColumns, type InsertedMemory, type NewMemory, type RecordTimes } from "./memory-rows.ts";
import { MAX_BATCH_ITEMS, type MemoryService } from "./memory.ts";
import type { Author } from "./principal.ts";
import { threadValues, writeThreadRow, type ThreadInput } from "./thread.ts";

/** What an import keeps of a record as exported: its id (idempotence) and its timestamps (the list's order). */
interface ImportedRecord {
  /** Absent: a new record under a new id, each time the line is imported. */
  id?: string | null;
  createdAt?: Date | null;
  updatedAt?: Date | null;
}

export type ImportItem =
  | ({ kind: "thread"; input: ThreadInput } & ImportedRecord)
  | ({ kind: "memory"; input: MemoryInput; embedding?: StoredEmbedding | null } & ImportedRecord);

/** One line of an import as read: its item, or why it could not be read. */
/** A line read into an item, or why it could not be, with the kind and id it names when it names them. */
export type ImportLine =
  | { line: number; item: ImportItem }
  | { line: number; error: AppError; kind?: ImportItem["kind"] | null; id?: string | null };

export type ImportStatus = "created" | "updated" | "skipped" | "failed";

export interface ImportResult {
  line: number;
  kind: ImportItem["kind"] | null;
  /** The record's id (null for a line that could not be read, or whose id is not one). */
  id: string | null;
  status: ImportStatus;
  error?: AppError;
}

export type ImportSummary = Record<ImportStatus, number>;

type MemoryItem = Extract<ImportItem, { kind: "memory" }>;
type Pending = { line: number; item: MemoryItem } | { line: number; result: ImportResult };

interface Checked {
  index: number;
  line: number;
  id: string;
  values: MemoryValues;
  item: MemoryItem;
}

interface ExistingMemory extends MemoryValues {
  userId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The times a line gives, to be kept. */
const lineTimes = (item: { createdAt?: Date | null; updatedAt?: Date | null }): RecordTimes => ({
  ...(item.createdAt ? { createdAt: item.createdAt } : {}),
  ...(item.updatedAt ? { updatedAt: item.updatedAt } : {}),
});

/** A new record's creation: the line's, else its updated_at (nothing is changed before it is made), else now. */
const createdAtOf = (item: { createdAt?: Date | null; updatedAt?: Date | null }): Date | null => item.createdAt ?? item.updatedAt ?? null;

/** Whether a stored record has the times the line gives (a line without them has nothing to compare). */
const sameTimes = (stored: { createdAt: Date; updatedAt: Date }, times: RecordTimes) =>
  (!times.createdAt || times.createdAt.getTime() === stored.createdAt.getTime()) &&
  (!times.updatedAt || times.updatedAt.getTime() === stored.updatedAt.getTime());

/** The line's times over a stored record: refused when its updated_at would come before the record's creation. */
function checkTimes(stored: { createdAt: Date }, times: RecordTimes): void {
  if (times.updatedAt && times.updatedAt < (times.createdAt ?? stored.createdAt)) {
    throw invalid("updated_at", "must not be before created_at (the record's, when the line gives none)");
  }
}

/**
 * The id belongs to another user's record. The line fails rather than taking a new id, so that importing the
 * file again does not store the record once more; the answer says no more than that the id is taken.
 */
const idTaken = () => invalid("id", "is in use, not by one of your records: leave it out to import this record under a new id");

function checkId(id: string): string {
  if (!isUuid(id)) throw invalid("id", "must be a UUID");
  return id.toLowerCase();
}

/** The fields an import compares: a record the same in all of them is skipped. */
const memoryKey = (m: MemoryValues) =>
  canonicalJson([m.content, m.data, m.type, m.tags, m.metadata, m.threadId, m.isArchived, m.expiresAt == null ? null : new Date(m.expiresAt).toISOString()] as JsonValue);

const isUniqueViolation = (error: unknown) => (error as { code?: unknown }).code === "23505";

/**
 * Reads records as an export writes them (or as a client sends plain memories) into a user's account, a batch
 * of up to MAX_BATCH_ITEMS memories a statement. Idempotent by id: a record whose id the user holds already is
 * skipped when it is the same and replaced when it differs; an id of another user's record fails its line. A
 * memory keeps the exported vector when this service's embedder made it, else is embedded anew. Threads are
 * stored as they come, so a file lists each thread before its memories (an export does).
 */
export class ImportService extends WritingService {
  private readonly memories: MemoryService;
  private readonly history: HistoryService;
  private readonly expiry: ExpirySweeper;

  constructor(memories: MemoryService, history: HistoryService, expiry: ExpirySweeper, ...deps: ConstructorParameters<typeof WritingService>) {
    super(...deps);
    this.memories = memories;
    this.history = history;
    this.expiry = expiry;
  }

  /** How much of an import is read: a line as much as a request body, the whole of it up to maxImportBytes. */
  get readLimits(): { maxLineBytes: number; maxTotalBytes: number } {
    return { maxLineBytes: this.limits.maxBodyBytes, maxTotalBytes: this.limits.maxImportBytes };
  }

  async import(author: Author, lines: AsyncIterable<ImportLine>, onResult: (result: ImportResult) => void): Promise<ImportSummary> {
    const summary: ImportSummary = { created: 0, updated: 0, skipped: 0, failed: 0 };
    const report = (result: ImportResult) => {
      summary[result.status]++;
      onResult(result);
    };
    // memories wait for a batch; results wait with them, so that they are reported in line order
    let pending: Pending[] = [];
    const ids = new Set<string>();
    const flush = async () => {
      if (pending.length) (await this.storeMemories(author, pending)).forEach(report);
      pending = [];
      ids.clear();
    };
    for await (const entry of lines) {
      if ("error" in entry) {
        const { line, kind = null, id = null, error } = entry;
        pending.push({ line, result: { line, kind, id, status: "failed", error } });
      } else if (entry.item.kind === "thread") {
        await flush();
        report(await this.storeThread(author, entry.line, entry.item));
      } else {
        // the same id twice in one statement cannot be: the second waits for the next batch, and finds the first
        const id = entry.item.id?.toLowerCase();
        if (id !== undefined && ids.has(id)) await flush();
        if (id !== undefined) ids.add(id);
        pending.push({ line: entry.line, item: entry.item });
      }
      if (pending.length >= MAX_BATCH_ITEMS) await flush();
    }
    await flush();
    return summary;
  }

  private async storeThread(author: Author, line: number, item: Extract<ImportItem, { kind: "thread" }>): Promise<ImportResult> {
    const result = (status: ImportStatus, id: string | null, error?: AppError): ImportResult => ({
      line,
      kind: "thread",
      id,
      status,
      ...(error ? { error } : {}),
    });
    let id = item.id ?? null;
    try {
      const values = threadValues(item.input, this.limits);
      id = id === null ? newId() : checkId(id);
      const times = lineTimes(item);
      const held = async (found: Thread): Promise<ImportResult> => {
        if (found.userId !== author.userId) throw idTaken();
        const same = canonicalJson([found.title, found.description, found.metadata, found.status] as JsonValue) ===
          canonicalJson([values.title, values.description, values.metadata, values.status] as JsonValue);
        if (same && sameTimes(found, times)) return result("skipped", id);
        checkTimes(found, times);
        const row = { id: found.id, userId: author.userId, ...values, ...times };
        // deleted since it was read: stored anew
        if (!(await writeThreadRow(this.db.sql, "update", row))) return await this.storeThread(author, line, item);
        this.relay.wake();
        return result("updated", id);
      };
      const found = await this.db.prisma.thread.findUnique({ where: { id } });
      if (found) return await held(found);
      if (!(await writeThreadRow(this.db.sql, "insert", { id, userId: author.userId, ...values, ...times, createdAt: createdAtOf(item) }))) {
        // stored meanwhile by a concurrent import: as if it had been there at first
        const meanwhile = await this.db.prisma.thread.findUnique({ where: { id } });
        return meanwhile ? await held(meanwhile) : await this.storeThread(author, line, item);
      }
      this.relay.wake();
      return result("created", id);
    } catch (error) {
      if (error instanceof AppError) return result("failed", id, error);
      throw error;
    }
  }

  private async storeMemories(author: Author, pending: readonly Pending[]): Promise<ImportResult[]> {
    const results: ImportResult[] = new Array(pending.length);
    const checked: Checked[] = [];
    pending.forEach((entry, index) => {
      if ("result" in entry) return void (results[index] = entry.result);
      const { line, item } = entry;
      try {
        const id = item.id == null ? newId() : checkId(item.id);
        checked.push({ index, line, id, values: completeValues(item.input, this.limits), item });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        results[index] = { line, kind: "memory", id: item.id ?? null, status: "failed", error };
      }
    });
    // a line without an id that failed names none: the id made for it was never stored
    const outcome = (c: Checked, status: ImportStatus, error?: AppError) =>
      (results[c.index] = { line: c.line, kind: "memory", id: error && c.item.id == null ? null : c.id, status, ...(error ? { error } : {}) });

    const inserts: Checked[] = [];
    const updates: Checked[] = [];
    // a record stored already: the same skipped, a changed one replaced, another user's failed
    const held = (c: Checked, found: ExistingMemory) => {
      if (found.userId !== author.userId) return outcome(c, "failed", idTaken());
      if (memoryKey(found) === memoryKey(c.values) && sameTimes(found, lineTimes(c.item))) return outcome(c, "skipped");
      try {
        checkTimes(found, lineTimes(c.item));
        updates.push(c);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        outcome(c, "failed", error);
      }
    };
    let existing = await this.existing(checked.map((c) => c.id));
    // an expired memory the sweeper has not deleted yet is gone for every read: deleted now as the sweeper deletes
    // it, its import creates it anew (deleted, then created, in its history) rather than reviving it as "updated"
    // (outside probe), and answers alike before the sweep and after
    if ([...existing.values()].some((m) => m.userId === author.userId && m.expiresAt !== null && m.expiresAt <= new Date())) {
      await this.expiry.sweep();
      existing = await this.existing(checked.map((c) => c.id));
    }
    const othersHistory = await this.history.heldByOthers(author.userId, checked.filter((c) => !existing.has(c.id)).map((c) => c.id));
    for (const c of checked) {
      const found = existing.get(c.id);
      if (found) held(c, found);
      else if (othersHistory.has(c.id)) outcome(c, "failed", idTaken());
      else inserts.push(c);
    }

    const columns = await this.vectorColumns(inserts);
    const rows: (NewMemory & { taken?: boolean })[] = inserts.map((c, k) => ({
      ...c.values,
      ...columns[k]!,
      id: c.id,
      userId: author.userId,
      writtenByKey: author.keyId,
      createdAt: createdAtOf(c.item),
      updatedAt: c.item.updatedAt ?? null,
    }));
    const stored = await this.insert(rows);
    if (stored.length) {
      this.totals.changed(author.userId, stored.map(({ memory }) => memory.id));
      this.relay.wake();
    }
    await this.indexer.forWrite(this.indexer.indexInserted(stored));
    const storedIds = new Set(stored.map(({ memory }) => memory.id));
    // ids stored meanwhile by a concurrent import: as if they had been there at first (the same file imported
    // twice at once is the user's own records, skipped, not another user's)
    const taken = await this.existing(rows.filter((row) => row.taken).map((row) => row.id));
    for (const c of inserts) {
      const found = taken.get(c.id);
      if (storedIds.has(c.id)) outcome(c, "created");
      else if (found) held(c, found);
      else outcome(c, "failed", unknownThread());
    }

    for (const c of updates) {
      try {
        await this.memories.restore(author, c.id, c.values, this.keptEmbedding(c.item), lineTimes(c.item));
        outcome(c, "updated");
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        outcome(c, "failed", error);
      }
    }
    return results;
  }

  /** The memories with these ids, whoever's they are. */
  private async existing(ids: readonly string[]): Promise<Map<string, ExistingMemory>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.sql.query<ExistingMemory & { id: string }>(
      `SELECT id, user_id AS "userId", content, data, type, tags, metadata, thread_id AS "threadId", is_archived AS "isArchived",
              expires_at AS "expiresAt", created_at AS "createdAt", updated_at AS "updatedAt"
         FROM memories WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map(({ id, ...row }) => [id, row]));
  }

  private keptEmbedding(item: MemoryItem): EmbeddingColumns | undefined {
    return item.embedding ? this.indexer.keptEmbedding(item.embedding.embedder, item.embedding.bytes) : undefined;
  }

  /** Each memory's vector columns: the exported vector when it can be kept, else made now (in one call) or later. */
  private async vectorColumns(items: readonly Checked[]): Promise<EmbeddingColumns[]> {
    const kept = items.map((c) => this.keptEmbedding(c.item));
    const missing = items.filter((_, k) => !kept[k]);
    const vectors = missing.length ? await this.indexer.embedForWrite(missing.map((c) => c.values.content)) : null;
    let next = 0;
    return kept.map((columns) => columns ?? this.indexer.embeddingColumns(vectors?.[next++]));
  }

  /**
   * One statement for the batch; when it fails (an id stored meanwhile by a concurrent import), row by row, so
   * that only the rows whose id is taken fail (marked `taken`).
   */
  private async insert(rows: (NewMemory & { taken?: boolean })[]): Promise<InsertedMemory[]> {
    try {
      return await insertMemories(this.db, rows, this.indexer.taskRule);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (rows.length === 1) {
        rows[0]!.taken = true;
        return [];
      }
      return (await Promise.all(rows.map((row) => this.insert([row])))).flat();
    }
  }
}
