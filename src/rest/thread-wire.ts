import { isPlainObject } from "../domain/json.ts";
import { invalid } from "../errors.ts";
import type { Thread } from "../generated/prisma/client.ts";
import { MEMORY_FRAGMENT, restMemory, type MemoryView } from "./memory-wire.ts";
import { ref } from "./openapi/types.ts";
import { objectSchema, timestamp, uuid } from "./openapi/schema-parts.ts";
import { fragment, snakeCasedPick, type GraphQLView } from "./wire-shape.ts";

/** The thread's own fields every REST answer carries, by their GraphQL names (memoryCount is counted, not stored). */
const THREAD_FIELDS = ["id", "title", "description", "metadata", "status", "createdAt", "updatedAt", "memoryCount"] as const;

export const THREAD_FRAGMENT = fragment("RestThread", "Thread", THREAD_FIELDS);

/** The memories only when asked for. */
export const THREAD_WITH_MEMORIES_FRAGMENT = /* GraphQL */ `
  fragment RestThreadWithMemories on Thread {
    ...RestThread
    memories(limit: $limit) @include(if: $includeMemories) { ...RestMemory }
  }
  ${THREAD_FRAGMENT}
  ${MEMORY_FRAGMENT}
`;

/** A thread as the RestThread fragment returns it, with its memories when RestThreadWithMemories asked for them. */
export type ThreadView = GraphQLView<Thread, Exclude<(typeof THREAD_FIELDS)[number], "memoryCount">> & {
  memoryCount: number;
  memories?: MemoryView[];
};

export function restThread(thread: ThreadView) {
  return {
    ...snakeCasedPick(thread, THREAD_FIELDS),
    ...(thread.memories ? { memories: thread.memories.map(restMemory) } : {}),
  };
}

type RestThread = ReturnType<typeof restThread>;

export const THREAD_SCHEMA = objectSchema<RestThread>("A thread: a group of memories (a conversation, a project, a topic).", {
  id: uuid("Assigned by the service."),
  title: { type: "string" },
  description: { type: ["string", "null"] },
  metadata: { type: "object" },
  status: ref("schemas", "ThreadStatus"),
  created_at: timestamp("When it was created."),
  updated_at: timestamp("When it last changed."),
  memory_count: { type: "integer", minimum: 0, description: "How many memories are filed under it." },
  memories: {
    type: "array",
    items: ref("schemas", "Memory"),
    description: "Newest first; only on GET /api/v1/threads/{id} with include_memories=true.",
  },
}, ["memories"]);

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
