import { Operation } from "../operation.ts";
import { MEMORY_FRAGMENT, memoryInputOf, restMemory, type MemoryView } from "../memory-wire.ts";
import type { RestHandler, Router } from "../router.ts";

const createMemory = new Operation<{ createMemory: MemoryView }>(/* GraphQL */ `
  mutation RestCreateMemory($input: CreateMemoryInput!) {
    createMemory(input: $input) { ...RestMemory }
  }
  ${MEMORY_FRAGMENT}
`);

const listMemories = new Operation<{
  memories: { items: MemoryView[]; total: number; limit: number; offset: number; hasMore: boolean };
}>(/* GraphQL */ `
  query RestListMemories($filter: MemoryFilter, $limit: Int, $offset: Int) {
    memories(filter: $filter, limit: $limit, offset: $offset) {
      items { ...RestMemory }
      total
      limit
      offset
      hasMore
    }
  }
  ${MEMORY_FRAGMENT}
`);

/** POST /api/v1/memory */
export const create: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const input = memoryInputOf(await body());
  const { createMemory: memory } = await createMemory.run(schema, context, { input });
  return { status: 201, body: { ...restMemory(memory), ok: true } };
};

/** GET /api/v1/memory */
export const list: RestHandler = async ({ query, schema, context }) => {
  query.only(["limit", "offset", "type", "tags", "thread_id", "is_archived"]);
  const filter = {
    type: query.string("type"),
    tags: query.list("tags"),
    threadId: query.string("thread_id"),
    isArchived: query.bool("is_archived"),
  };
  const { memories: page } = await listMemories.run(schema, context, {
    filter,
    limit: query.int("limit"),
    offset: query.int("offset"),
  });
  return {
    status: 200,
    body: {
      memories: page.items.map(restMemory),
      total: page.total,
      limit: page.limit,
      offset: page.offset,
      has_more: page.hasMore,
    },
  };
};

export function addMemoryRoutes(router: Router): void {
  router.add("POST", "/api/v1/memory", create).add("GET", "/api/v1/memory", list);
}
