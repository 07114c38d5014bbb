import { DEFAULT_LIST_LIMIT } from "../../domain/memory.ts";
import type { PageOf } from "../../domain/paging.ts";
import { DEFAULT_THREAD_LIMIT } from "../../domain/thread.ts";
import { notFound } from "../../errors.ts";
import { boolParam, EXAMPLE_MEMORY, EXAMPLE_THREAD_ID, limitParam, offsetParam, pageSuccess, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { Operation } from "../operation.ts";
import { pageSelection, restPage } from "../page-wire.ts";
import type { RestHandler, Router } from "../router.ts";
import { ofPathId } from "../wire-shape.ts";
import { restThread, THREAD_FRAGMENT, THREAD_WITH_MEMORIES_FRAGMENT, threadInputOf, type ThreadView } from "../thread-wire.ts";

const createThread = new Operation<{ createThread: ThreadView }>(/* GraphQL */ `
  mutation RestCreateThread($input: CreateThreadInput!) { createThread(input: $input) { ...RestThread } }
  ${THREAD_FRAGMENT}
`);

const listThreads = new Operation<{
  threads: PageOf<ThreadView>;
}>(/* GraphQL */ `
  query RestListThreads($status: ThreadStatus, $limit: Int, $offset: Int) {
    threads(status: $status, limit: $limit, offset: $offset) { ${pageSelection("RestThread")} }
  }
  ${THREAD_FRAGMENT}
`);

const getThread = new Operation<{ thread: ThreadView | null }>(/* GraphQL */ `
  query RestGetThread($id: ID!, $includeMemories: Boolean!, $limit: Int) {
    thread(id: $id) { ...RestThreadWithMemories }
  }
  ${THREAD_WITH_MEMORIES_FRAGMENT}
`);

const updateThread = new Operation<{ updateThread: ThreadView }>(/* GraphQL */ `
  mutation RestUpdateThread($id: ID!, $input: UpdateThreadInput!) { updateThread(id: $id, input: $input) { ...RestThread } }
  ${THREAD_FRAGMENT}
`);

const deleteThread = new Operation<{ deleteThread: boolean }>(/* GraphQL */ `
  mutation RestDeleteThread($id: ID!, $deleteMemories: Boolean) { deleteThread(id: $id, deleteMemories: $deleteMemories) }
`);

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

const createDoc: RouteDoc = {
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
};

/** POST /api/v1/threads */
export const create: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const { createThread: thread } = await createThread.run(schema, context, { input: threadInputOf(await body()) });
  return { status: 201, body: restThread(thread) };
};

const listDoc: RouteDoc = {
  operationId: "listThreads",
  tag: "Threads",
  summary: "List threads",
  description: "Your threads, newest first.",
  query: [
    limitParam(DEFAULT_THREAD_LIMIT, "threads"),
    offsetParam("threads"),
    { name: "status", in: "query", description: "Only threads in this state.", schema: ref("schemas", "ThreadStatus") },
  ],
  success: pageSuccess("A page of threads.", "ThreadList", "threads", EXAMPLE_THREAD, DEFAULT_THREAD_LIMIT),
};

/** GET /api/v1/threads */
export const list: RestHandler = async ({ query, schema, context }) => {
  query.only(["limit", "offset", "status"]);
  const { threads: page } = await listThreads.run(schema, context, {
    status: query.string("status"),
    limit: query.int("limit"),
    offset: query.int("offset"),
  });
  return {
    status: 200,
    body: restPage("threads", page, restThread),
  };
};

const getDoc: RouteDoc = {
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
};

/** GET /api/v1/threads/{id}?include_memories=true&limit= */
export const get: RestHandler = async ({ params, query, schema, context }) => {
  query.only(["include_memories", "limit"]);
  const { thread } = await getThread.run(schema, context, {
    id: params.id,
    includeMemories: query.bool("include_memories") ?? false,
    limit: query.int("limit"),
  });
  if (!thread) throw notFound("Thread");
  return { status: 200, body: { thread: restThread(thread) } };
};

const updateDoc: RouteDoc = {
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
};

/** PATCH /api/v1/threads/{id} */
export const update: RestHandler = async ({ params, query, body, schema, context }) => {
  query.only([]);
  const { updateThread: thread } = await updateThread.run(schema, context, { id: params.id, input: threadInputOf(ofPathId(await body(), params.id)) });
  return { status: 200, body: restThread(thread) };
};

const removeDoc: RouteDoc = {
  operationId: "deleteThread",
  tag: "Threads",
  summary: "Delete a thread",
  description: "Deletes the thread. Its memories stay, without a thread_id, unless delete_memories=true deletes them too.",
  pathParams: THREAD_ID,
  query: [boolParam("delete_memories", "Delete the thread's memories as well.", false)],
  success: { status: 200, description: "Deleted.", schema: ref("schemas", "Ok"), example: { ok: true } },
  errors: { NOT_FOUND },
};

/** DELETE /api/v1/threads/{id}?delete_memories=true */
export const remove: RestHandler = async ({ params, query, schema, context }) => {
  query.only(["delete_memories"]);
  await deleteThread.run(schema, context, { id: params.id, deleteMemories: query.bool("delete_memories") ?? false });
  return { status: 200, body: { ok: true } };
};

export function addThreadRoutes(router: Router): void {
  router
    .add("POST", "/api/v1/threads", create, { doc: createDoc })
    .add("GET", "/api/v1/threads", list, { doc: listDoc })
    .add("GET", "/api/v1/threads/:id", get, { doc: getDoc })
    .add("PATCH", "/api/v1/threads/:id", update, { doc: updateDoc })
    .add("DELETE", "/api/v1/threads/:id", remove, { doc: removeDoc });
}
