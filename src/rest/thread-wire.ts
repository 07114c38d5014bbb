import { invalid } from "../errors.ts";
import { isPlainObject, type JsonObject } from "../domain/json.ts";
import { MEMORY_FRAGMENT, restMemory, type MemoryView } from "./memory-wire.ts";

/** The thread fields every REST response carries; memories only when asked for. */
export const THREAD_FRAGMENT = /* GraphQL */ `
  fragment RestThread on Thread {
    id
    title
    description
    metadata
    status
    createdAt
    updatedAt
    memoryCount
  }
`;

export const THREAD_WITH_MEMORIES_FRAGMENT = /* GraphQL */ `
  fragment RestThreadWithMemories on Thread {
    ...RestThread
    memories(limit: $limit) @include(if: $includeMemories) { ...RestMemory }
  }
  ${THREAD_FRAGMENT}
  ${MEMORY_FRAGMENT}
`;

export interface ThreadView {
  id: string;
  title: string;
  description: string | null;
  metadata: JsonObject;
  status: string;
  createdAt: string;
  updatedAt: string;
  memoryCount: number;
  memories?: MemoryView[];
}

export function restThread(thread: ThreadView) {
  return {
    id: thread.id,
    title: thread.title,
    description: thread.description,
    metadata: thread.metadata,
    status: thread.status,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
    memory_count: thread.memoryCount,
    ...(thread.memories ? { memories: thread.memories.map(restMemory) } : {}),
  };
}

const writable = new Set(["title", "description", "metadata", "status"]);
const readOnly = new Set(["id", "created_at", "updated_at", "memory_count", "memories"]);

/** A REST thread body as the GraphQL thread input (the names are the same). */
export function threadInputOf(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw invalid("body", "must be a JSON object");
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (writable.has(key)) input[key] = value;
    else if (!readOnly.has(key)) throw invalid(key, "is not a field of a thread");
  }
  return input;
}
