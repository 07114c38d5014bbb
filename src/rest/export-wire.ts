import { isInputType, type GraphQLSchema } from "graphql";
import type { ExportItem, StoredEmbedding } from "../domain/export.ts";
import type { ImportItem, ImportLine, ImportResult } from "../domain/import.ts";
import type { MemoryInput } from "../domain/memory-input.ts";
import { isPlainObject } from "../domain/json.ts";
import type { Memory } from "../domain/memory.ts";
import type { Thread, ThreadInput } from "../domain/thread.ts";
import { AppError, invalid } from "../errors.ts";
import { restError } from "./errors.ts";
import { memoryInputOf, restMemory, restVersion, type MemoryView } from "./memory-wire.ts";
import { coerceValue } from "./operation.ts";
import { threadInputOf } from "./thread-wire.ts";
import { isStorableInstant, STORABLE_INSTANTS } from "../vectors/iso-instant.ts";

/*
 * The export format, NDJSON: one record a line, `kind` first ("thread" or "memory"), then the record as the REST
 * API shows it, with its id. A memory line may add `history` (its versions, oldest first, as GET
 * /api/v1/memories/{id}/history shows them) and `embedding` ({embedder, vector}: the embedder's id, which names
 * its model and dimensions, and the float32 little-endian vector in base64; null when not embedded yet).
 * Import reads the same lines, or plain memories (no `kind`).
 */

const iso = (date: Date | string) => (typeof date === "string" ? date : date.toISOString());

/** A stored memory as the RestMemory fragment would answer it. */
const memoryView = (memory: Memory): MemoryView => ({
  id: memory.id,
  content: memory.content,
  data: memory.data,
  type: memory.type,
  tags: memory.tags,
  metadata: memory.metadata,
  threadId: memory.threadId,
  isArchived: memory.isArchived,
  expiresAt: memory.expiresAt && new Date(memory.expiresAt),
  createdAt: iso(memory.createdAt),
  updatedAt: iso(memory.updatedAt),
});

const restThreadRecord = (thread: Thread) => ({
  id: thread.id,
  title: thread.title,
  description: thread.description,
  metadata: thread.metadata,
  status: thread.status,
  created_at: iso(thread.createdAt),
  updated_at: iso(thread.updatedAt),
});

const restEmbedding = (embedding: StoredEmbedding | null) =>
  embedding && { embedder: embedding.embedder, vector: Buffer.from(embedding.bytes).toString("base64") };

/** One line of an export. */
export function exportLine(item: ExportItem) {
  if (item.kind === "thread") return { kind: item.kind, ...restThreadRecord(item.thread) };
  return {
    kind: item.kind,
    ...restMemory(memoryView(item.memory)),
    ...(item.history ? { history: item.history.map(restVersion) } : {}),
    ...(item.embedding !== undefined ? { embedding: restEmbedding(item.embedding) } : {}),
  };
}

/**
 * ISO 8601 with a time and a zone, as exports write them and GraphQL's DateTime takes them (years of more than
 * four digits too, which the range check then names): Date alone reads "2025-01-02", "1" (2001) or "May 3".
 */
const TIMESTAMP = /^[+-]?\d{4,6}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

function timestampOf(value: unknown, field: string): Date | null {
  if (value == null) return null;
  const date = typeof value === "string" && TIMESTAMP.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw invalid(field, "must be an ISO 8601 timestamp with a time and a zone (2026-01-31T09:00:00Z)");
  if (!isStorableInstant(date.getTime())) throw invalid(field, `must be ${STORABLE_INSTANTS}`);
  return date;
}

function embeddingOf(value: unknown): StoredEmbedding | null {
  if (value == null) return null;
  if (!isPlainObject(value) || typeof value.embedder !== "string") throw invalid("embedding", "must be {embedder, vector}");
  const { vector } = value;
  if (typeof vector === "string") return { embedder: value.embedder, bytes: new Uint8Array(Buffer.from(vector, "base64")) };
  if (Array.isArray(vector) && vector.every((x) => typeof x === "number")) {
    const floats = Float32Array.from(vector as number[]);
    return { embedder: value.embedder, bytes: new Uint8Array(floats.buffer) };
  }
  throw invalid("embedding.vector", "must be base64 of float32 little-endian values, or an array of numbers");
}

function inputType(schema: GraphQLSchema, name: string) {
  const type = schema.getType(name);
  if (!type || !isInputType(type)) throw new Error(`${name} is not in the schema`);
  return type;
}

// how far ahead of this server's clock an imported time may be: the clock of the service that exported it may run fast
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * An import line as the import service takes it: checked against the GraphQL input of a create, as the batch
 * route checks its items. `history` is read past (a memory's history starts anew with its import).
 */
function importItemOf(value: unknown, schema: GraphQLSchema): ImportItem {
  if (!isPlainObject(value)) throw invalid("line", "must be a JSON object");
  const { kind = "memory", id, created_at, updated_at, embedding, history: _history, ...fields } = value;
  if (id != null && typeof id !== "string") throw invalid("id", "must be a UUID");
  const record = { id: id ?? null, createdAt: timestampOf(created_at, "created_at"), updatedAt: timestampOf(updated_at, "updated_at") };
  // times no write could have given: a record from the future would head every newest-first list for good
  if (record.updatedAt && record.createdAt && record.updatedAt < record.createdAt) throw invalid("updated_at", "must not be before created_at");
  for (const [field, time] of [["created_at", record.createdAt], ["updated_at", record.updatedAt]] as const) {
    if (time && time.getTime() > Date.now() + CLOCK_SKEW_MS) throw invalid(field, "must not be in the future");
  }
  if (kind === "thread") {
    return { kind, ...record, input: coerceValue(threadInputOf(fields), inputType(schema, "UpdateThreadInput")) as ThreadInput };
  }
  if (kind !== "memory") throw invalid("kind", 'must be "thread" or "memory"');
  const input = coerceValue(memoryInputOf(fields, "line"), inputType(schema, "CreateMemoryInput")) as MemoryInput;
  return { kind, ...record, input, embedding: embeddingOf(embedding) };
}

/** An import's result line, as REST shows it. */
export function restImportResult({ line, kind, id, status, error }: ImportResult) {
  return { line, kind, id, status, ...(error ? { error: restError(error) } : {}) };
}

/** The kind and id a line that failed names, where it names them, for its result. */
function namedRecord(value: unknown): { kind: ImportItem["kind"] | null; id: string | null } {
  if (!isPlainObject(value)) return { kind: null, id: null };
  const kind = value.kind ?? "memory";
  return { kind: kind === "memory" || kind === "thread" ? kind : null, id: typeof value.id === "string" ? value.id : null };
}

/** Line `line` of an import, read (`read` parses it) into an item, or the reason it cannot be. */
export function importLineOf(line: number, read: () => unknown, schema: GraphQLSchema): ImportLine {
  let value: unknown;
  try {
    value = read();
    return { line, item: importItemOf(value, schema) };
  } catch (error) {
    if (error instanceof AppError) return { line, error, ...namedRecord(value) };
    // a JSON syntax error is the client's, not the server's
    if (error instanceof SyntaxError) return { line, error: new AppError("INVALID_JSON", `The line is not valid JSON: ${error.message}`) };
    throw error;
  }
}
