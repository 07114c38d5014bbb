import type { Limits } from "../config.ts";
import { invalid } from "../errors.ts";
import { exceedsCharacters, isBlank } from "../text/characters.ts";
import { expiryOf, type ExpiryInput } from "./expiry.ts";
import { isUuid } from "./ids.ts";
import { canonicalJson, isPlainObject, jsonProblem, unstorableText, type JsonObject, type JsonValue } from "./json.ts";

/** Known values of `type`; others are accepted if they are short lowercase words. */
export const KNOWN_MEMORY_TYPES = ["preference", "observation", "journal", "task", "insight"] as const;

export const TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_JSON_DEPTH = 32;

/** A memory's writable fields as a caller sends them; `undefined` means "not sent", `null` means "clear". */
export interface MemoryInput extends ExpiryInput {
  content?: string | null;
  data?: unknown;
  type?: string | null;
  tags?: readonly string[] | null;
  metadata?: unknown;
  threadId?: string | null;
  isArchived?: boolean | null;
  /** A create only: whether to answer an existing duplicate instead of storing (dedupe.ts); absent: the server's rule. */
  dedupe?: boolean | null;
}

/** A memory's writable fields, checked and normalised. */
export interface MemoryValues {
  content: string;
  /** The structured record when the memory was created from an object; `content` is then its canonical JSON. */
  data: JsonObject | null;
  type: string | null;
  tags: string[];
  metadata: JsonObject;
  threadId: string | null;
  isArchived: boolean;
  /** When it expires; null: never. */
  expiresAt: Date | null;
  /**
   * Given with expiresAt when the caller asked for seconds from now (ttlSeconds): the write then dates the expiry
   * from its own time (memory-rows.ts), so that expires_at is exactly created_at (or updated_at) plus the seconds,
   * rather than the time of the request's check plus them, a few milliseconds before.
   */
  ttlMs?: number;
}

export const MEMORY_DEFAULTS: Omit<MemoryValues, "content" | "data"> = {
  type: null,
  tags: [],
  metadata: {},
  threadId: null,
  isArchived: false,
  expiresAt: null,
};

export function checkContentText(content: string, limits: Limits, field = "content"): string {
  if (isBlank(content)) throw invalid(field, "must not be empty");
  const reason = unstorableText(content);
  if (reason) throw invalid(field, reason);
  if (exceedsCharacters(content, limits.maxContentChars)) {
    throw invalid(field, `must be at most ${limits.maxContentChars} characters`);
  }
  return content;
}

function contentOf(input: MemoryInput, limits: Limits): Pick<MemoryValues, "content" | "data"> {
  if (input.content != null && input.data != null) throw invalid("content", "and data cannot both be given");
  if (input.data != null) {
    if (!isPlainObject(input.data)) throw invalid("data", "must be a JSON object");
    const problem = jsonProblem(input.data, MAX_JSON_DEPTH);
    if (problem) throw invalid(`data${problem.path}`, problem.reason);
    const data = input.data as JsonObject;
    if (Object.keys(data).length === 0) throw invalid("data", "must not be an empty object");
    return { content: checkContentText(canonicalJson(data), limits, "data"), data };
  }
  if (input.content == null) throw invalid("content", input.data === null ? "is required when data is null" : "is required");
  return { content: checkContentText(input.content, limits), data: null };
}

/** A type as stored: also the rule for type filters, so a filter no stored type could match is a clear 400. */
export function checkType(type: string): string {
  const clean = type.trim().toLowerCase();
  if (!TYPE_PATTERN.test(clean)) {
    throw invalid("type", "must be a short lowercase word (a letter, then up to 31 letters, digits, _ or -)");
  }
  return clean;
}

export function checkTags(tags: readonly string[], limits: Limits, field = "tags"): string[] {
  if (tags.length > limits.maxTags) throw invalid(field, `must have at most ${limits.maxTags} entries`);
  const seen = new Set<string>();
  tags.forEach((tag, i) => {
    const clean = tag.trim();
    if (isBlank(clean)) throw invalid(`${field}[${i}]`, "must not be empty");
    if (exceedsCharacters(clean, limits.maxTagChars)) throw invalid(`${field}[${i}]`, `must be at most ${limits.maxTagChars} characters`);
    const reason = unstorableText(clean);
    if (reason) throw invalid(`${field}[${i}]`, reason);
    seen.add(clean);
  });
  return [...seen];
}

export function checkMetadata(metadata: unknown, limits: Limits, field = "metadata"): JsonObject {
  if (!isPlainObject(metadata)) throw invalid(field, "must be a JSON object");
  const problem = jsonProblem(metadata, MAX_JSON_DEPTH);
  if (problem) throw invalid(`${field}${problem.path}`, problem.reason);
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > limits.maxMetadataBytes) {
    throw invalid(field, `must be at most ${limits.maxMetadataBytes} bytes of JSON (it is ${bytes})`);
  }
  return metadata as JsonObject;
}

function nullOr<T>(value: string | null, check: (value: string) => T): T | null {
  return value === null ? null : check(value);
}

/** A thread_id that is not an id, not the user's, or no longer anyone's: one answer for all, as for any record. */
export const unknownThread = () => invalid("threadId", "does not name one of your threads");

function threadIdOf(threadId: string | null): string | null {
  if (threadId === null) return null;
  if (!isUuid(threadId)) throw unknownThread();
  return threadId.toLowerCase();
}

function required<T>(value: T | null, field: string): T {
  if (value === null) throw invalid(field, "cannot be null");
  return value;
}

/** The values of a new memory (create) or of a full replacement (PUT): what is not sent takes its default. */
export function completeValues(input: MemoryInput, limits: Limits): MemoryValues {
  return {
    ...contentOf(input, limits),
    type: nullOr(input.type ?? MEMORY_DEFAULTS.type, checkType),
    tags: checkTags(input.tags ?? MEMORY_DEFAULTS.tags, limits),
    metadata: checkMetadata(input.metadata ?? MEMORY_DEFAULTS.metadata, limits),
    threadId: threadIdOf(input.threadId ?? MEMORY_DEFAULTS.threadId),
    isArchived: input.isArchived ?? MEMORY_DEFAULTS.isArchived,
    expiresAt: expiryOf(input) ?? MEMORY_DEFAULTS.expiresAt,
    ...ttlOf(input),
  };
}

const ttlOf = (input: MemoryInput): Pick<MemoryValues, "ttlMs"> => (input.ttlSeconds == null ? {} : { ttlMs: input.ttlSeconds * 1000 });

/** The changes of a partial update (PATCH): only what was sent; `null` clears a field to its default. */
export function patchValues(input: MemoryInput, limits: Limits): Partial<MemoryValues> {
  const values: Partial<MemoryValues> = {};
  if (input.content !== undefined || input.data !== undefined) {
    if (input.content === null && input.data == null) throw invalid("content", "cannot be null");
    Object.assign(values, contentOf(input, limits));
  }
  if (input.type !== undefined) values.type = nullOr(input.type, checkType);
  if (input.tags !== undefined) values.tags = checkTags(input.tags ?? [], limits);
  if (input.metadata !== undefined) values.metadata = checkMetadata(input.metadata ?? {}, limits);
  if (input.threadId !== undefined) values.threadId = threadIdOf(input.threadId);
  if (input.isArchived !== undefined) values.isArchived = required(input.isArchived, "isArchived");
  const expiresAt = expiryOf(input);
  if (expiresAt !== undefined) Object.assign(values, { expiresAt }, ttlOf(input));
  return values;
}

export type { JsonObject, JsonValue };
