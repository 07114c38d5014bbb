import { isPlainObject } from "../domain/json.ts";
import type { MemoryVersion } from "../domain/history.ts";
import type { Memory } from "../domain/memory.ts";
import { TYPE_PATTERN } from "../domain/memory-input.ts";
import { invalid } from "../errors.ts";
import { objectSchema, timestamp, uuid } from "./openapi/schema-parts.ts";
import { fragment, snakeCasedPick, type GraphQLView } from "./wire-shape.ts";

/**
 * The memory fields every REST answer carries, by their GraphQL names: the fragment the routes select, the type of
 * what it answers and the REST shape all come from this list.
 */
const MEMORY_FIELDS = ["id", "content", "data", "type", "tags", "metadata", "threadId", "isArchived", "expiresAt", "createdAt", "updatedAt"] as const;

export const MEMORY_FRAGMENT = fragment("RestMemory", "Memory", MEMORY_FIELDS);

/** A memory as the RestMemory fragment returns it. */
export type MemoryView = GraphQLView<Memory, (typeof MEMORY_FIELDS)[number]>;

// `data` is not a field of its own on the wire: a structured record is the content itself
const REST_FIELDS = MEMORY_FIELDS.filter((field): field is Exclude<typeof field, "data"> => field !== "data");

/** The REST shape: snake_case, and `content` is the object itself for a structured record. */
export function restMemory(memory: MemoryView) {
  return { ...snakeCasedPick(memory, REST_FIELDS), content: memory.data ?? memory.content };
}

export type RestMemory = ReturnType<typeof restMemory>;

/** A version of a memory's history as REST shows it; the history holds each side as GraphQL shows memories. */
export function restVersion(version: Omit<MemoryVersion, "changedAt"> & { changedAt: Date | string }) {
  const side = (memory: MemoryVersion["before"]) => (memory === null ? null : restMemory(memory as unknown as MemoryView));
  return {
    version: version.version,
    action: version.action,
    changed_at: typeof version.changedAt === "string" ? version.changedAt : version.changedAt.toISOString(),
    key_id: version.keyId,
    key_name: version.keyName,
    before: side(version.before),
    after: side(version.after),
  };
}

export const MEMORY_SCHEMA = objectSchema<RestMemory>("A memory, as every current route returns it.", {
  id: uuid("Assigned by the service."),
  content: {
    description: "The text, or the structured record (a JSON object) when the memory was created from one.",
    oneOf: [{ type: "string" }, { type: "object" }],
  },
  type: { type: ["string", "null"], pattern: TYPE_PATTERN.source },
  tags: { type: "array", items: { type: "string" } },
  metadata: { type: "object" },
  thread_id: { type: ["string", "null"], format: "uuid", description: "The thread the memory is filed under." },
  is_archived: { type: "boolean" },
  expires_at: {
    type: ["string", "null"],
    format: "date-time",
    description: "When it expires (ISO 8601 UTC with milliseconds): from then on no route shows it. Null: never.",
  },
  created_at: timestamp("When it was created."),
  updated_at: timestamp("When it last changed."),
});

const writable: Record<string, string> = {
  type: "type",
  tags: "tags",
  metadata: "metadata",
  thread_id: "threadId",
  is_archived: "isArchived",
  expires_at: "expiresAt",
  ttl_seconds: "ttlSeconds",
};

// fields of a memory as the API returns it: a client may send a fetched memory back with PUT
const readOnly = new Set(["id", "ok", "deduplicated", "created_at", "updated_at"]);

/**
 * A REST memory body as the GraphQL memory input; `content` may be text or a structured record. `whole` names
 * the value in errors about it as a whole ("body", or "item" in a batch).
 */
export function memoryInputOf(body: unknown, whole = "body"): Record<string, unknown> {
  if (!isPlainObject(body)) throw invalid(whole, "must be a JSON object");
  // the service says so too, but in GraphQL's spelling of the second field
  // both null is no expiry, said twice
  if (Object.hasOwn(body, "expires_at") && Object.hasOwn(body, "ttl_seconds") && (body.expires_at !== null || body.ttl_seconds !== null)) {
    throw invalid("expires_at", "and ttl_seconds cannot both be given (one sets the other)");
  }
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === "content") {
      if (isPlainObject(value)) input.data = value;
      else if (typeof value === "string" || value === null) input.content = value;
      else throw invalid("content", "must be a string or a JSON object");
    } else if (Object.hasOwn(writable, key)) {
      input[writable[key]!] = value;
    } else if (!readOnly.has(key)) {
      throw invalid(key, "is not a field of a memory");
    }
  }
  return input;
}

/**
 * A create body (POST /api/v1/memory, a batch item) as the GraphQL create input: a memory, and `dedupe`, which
 * only a create takes (its type is GraphQL's to check).
 */
export function createInputOf(body: unknown, whole = "body"): Record<string, unknown> {
  if (!isPlainObject(body) || !Object.hasOwn(body, "dedupe")) return memoryInputOf(body, whole);
  const { dedupe, ...memory } = body;
  return { ...memoryInputOf(memory, whole), dedupe };
}
