import { invalid } from "../errors.ts";
import { isPlainObject, type JsonObject } from "../domain/json.ts";

/** The memory fields every REST response carries. */
export const MEMORY_FRAGMENT = /* GraphQL */ `
  fragment RestMemory on Memory {
    id
    content
    data
    type
    tags
    metadata
    threadId
    isArchived
    createdAt
    updatedAt
  }
`;

/** A memory as the RestMemory fragment returns it. */
export interface MemoryView {
  id: string;
  content: string;
  data: JsonObject | null;
  type: string | null;
  tags: string[];
  metadata: JsonObject;
  threadId: string | null;
  isArchived: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The REST shape: snake_case, and `content` is the object itself for a structured record. */
export function restMemory(memory: MemoryView) {
  return {
    id: memory.id,
    content: memory.data ?? memory.content,
    type: memory.type,
    tags: memory.tags,
    metadata: memory.metadata,
    thread_id: memory.threadId,
    is_archived: memory.isArchived,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
  };
}

const writable: Record<string, string> = {
  type: "type",
  tags: "tags",
  metadata: "metadata",
  thread_id: "threadId",
  is_archived: "isArchived",
};

// fields of a memory as the API returns it: a client may send a fetched memory back with PUT
const readOnly = new Set(["id", "ok", "created_at", "updated_at"]);

/**
 * A REST memory body as the GraphQL memory input; `content` may be text or a structured record. `whole` names
 * the value in errors about it as a whole ("body", or "item" in a batch).
 */
export function memoryInputOf(body: unknown, whole = "body"): Record<string, unknown> {
  if (!isPlainObject(body)) throw invalid(whole, "must be a JSON object");
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
