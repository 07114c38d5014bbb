import { notFound } from "../../errors.ts";
import { Operation } from "../operation.ts";
import type { RestHandler, Router } from "../router.ts";
import { restThread, THREAD_FRAGMENT, THREAD_WITH_MEMORIES_FRAGMENT, threadInputOf, type ThreadView } from "../thread-wire.ts";

const createThread = new Operation<{ createThread: ThreadView }>(/* GraphQL */ `
  mutation RestCreateThread($input: CreateThreadInput!) { createThread(input: $input) { ...RestThread } }
  ${THREAD_FRAGMENT}
`);

const listThreads = new Operation<{
  threads: { items: ThreadView[]; total: number; limit: number; offset: number; hasMore: boolean };
}>(/* GraphQL */ `
  query RestListThreads($status: ThreadStatus, $limit: Int, $offset: Int) {
    threads(status: $status, limit: $limit, offset: $offset) { items { ...RestThread } total limit offset hasMore }
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

/** POST /api/v1/threads */
export const create: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const { createThread: thread } = await createThread.run(schema, context, { input: threadInputOf(await body()) });
  return { status: 201, body: restThread(thread) };
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
    body: { threads: page.items.map(restThread), total: page.total, limit: page.limit, offset: page.offset, has_more: page.hasMore },
  };
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

/** PATCH /api/v1/threads/{id} */
export const update: RestHandler = async ({ params, query, body, schema, context }) => {
  query.only([]);
  const { updateThread: thread } = await updateThread.run(schema, context, { id: params.id, input: threadInputOf(await body()) });
  return { status: 200, body: restThread(thread) };
};

/** DELETE /api/v1/threads/{id}?delete_memories=true */
export const remove: RestHandler = async ({ params, query, schema, context }) => {
  query.only(["delete_memories"]);
  await deleteThread.run(schema, context, { id: params.id, deleteMemories: query.bool("delete_memories") ?? false });
  return { status: 200, body: { ok: true } };
};

export function addThreadRoutes(router: Router): void {
  router
    .add("POST", "/api/v1/threads", create)
    .add("GET", "/api/v1/threads", list)
    .add("GET", "/api/v1/threads/:id", get)
    .add("PATCH", "/api/v1/threads/:id", update)
    .add("DELETE", "/api/v1/threads/:id", remove);
}
