import { DEFAULT_LIST_LIMIT } from "../../domain/memories.ts";
import { DEFAULT_THREAD_LIMIT } from "../../domain/threads.ts";
import { boolParam, EXAMPLE_MEMORY, EXAMPLE_THREAD_ID, limitParam, offsetParam, type RouteDocs } from "./route-doc.ts";
import { ref } from "./types.ts";

const THREAD_ID = {
  id: {
    description: "The thread's id. Another user's id, or anything that is not an id, is 404 like a missing one.",
    example: EXAMPLE_THREAD_ID,
  },
};

const NOT_FOUND = { when: "No thread with this id is yours.", example: "Thread not found" };

const EXAMPLE_THREAD = {
  id: EXAMPLE_THREAD_ID,
  title: "Trip to Porto",
  description: "Planning notes",
  metadata: {},
  status: "active",
  created_at: "2026-01-31T09:00:00.000Z",
  updated_at: "2026-01-31T09:00:00.000Z",
  memory_count: 0,
};

/** The thread routes (src/rest/routes/threads.ts). */
export const threadRoutes: RouteDocs = {
  "POST /api/v1/threads": {
    operationId: "createThread",
    tag: "Threads",
    summary: "Create a thread",
    body: {
      schema: ref("schemas", "ThreadCreate"),
      examples: { trip: { summary: "A thread", value: { title: "Trip to Porto", description: "Planning notes" } } },
    },
    success: {
      status: 201,
      description: "The thread created, active.",
      schema: ref("schemas", "Thread"),
      example: EXAMPLE_THREAD,
    },
  },
  "GET /api/v1/threads": {
    operationId: "listThreads",
    tag: "Threads",
    summary: "List threads",
    description: "Your threads, newest first.",
    query: [
      limitParam(DEFAULT_THREAD_LIMIT, "threads"),
      offsetParam("threads"),
      { name: "status", in: "query", description: "Only threads in this state.", schema: ref("schemas", "ThreadStatus") },
    ],
    success: {
      status: 200,
      description: "A page of threads.",
      schema: ref("schemas", "ThreadList"),
      example: { threads: [EXAMPLE_THREAD], total: 1, limit: DEFAULT_THREAD_LIMIT, offset: 0, has_more: false },
    },
  },
  "GET /api/v1/threads/:id": {
    operationId: "getThread",
    tag: "Threads",
    summary: "Get a thread",
    pathParams: THREAD_ID,
    query: [
      boolParam("include_memories", "Include the thread's memories (newest first) as thread.memories.", false),
      limitParam(DEFAULT_LIST_LIMIT, "of the thread's memories (with include_memories)"),
    ],
    success: {
      status: 200,
      description: "The thread, wrapped as {thread}.",
      schema: ref("schemas", "ThreadEnvelope"),
      example: {
        thread: { ...EXAMPLE_THREAD, memory_count: 1, memories: [{ ...EXAMPLE_MEMORY, thread_id: EXAMPLE_THREAD_ID }] },
      },
    },
    errors: { NOT_FOUND },
  },
  "PATCH /api/v1/threads/:id": {
    operationId: "updateThread",
    tag: "Threads",
    summary: "Update a thread",
    description: "Changes the fields sent (title, description, metadata, status) and keeps the others.",
    pathParams: THREAD_ID,
    body: {
      schema: ref("schemas", "ThreadUpdate"),
      examples: { complete: { summary: "Mark it completed", value: { status: "completed" } } },
    },
    success: { status: 200, description: "The thread as changed.", schema: ref("schemas", "Thread") },
    errors: { NOT_FOUND },
  },
  "DELETE /api/v1/threads/:id": {
    operationId: "deleteThread",
    tag: "Threads",
    summary: "Delete a thread",
    description: "Deletes the thread. Its memories stay, without a thread_id, unless delete_memories=true deletes them too.",
    pathParams: THREAD_ID,
    query: [boolParam("delete_memories", "Delete the thread's memories as well.", false)],
    success: { status: 200, description: "Deleted.", schema: ref("schemas", "Ok"), example: { ok: true } },
    errors: { NOT_FOUND },
  },
};
