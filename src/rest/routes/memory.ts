import { filterParam } from "../filter-param.ts";
import { DEFAULT_LIST_LIMIT } from "../../domain/memory.ts";
import { cursorOf, isCursor } from "../../domain/memory-pages.ts";
import { MAX_PAGE_SIZE } from "../../domain/paging.ts";
import { invalid } from "../../errors.ts";
import type { PageOf } from "../../domain/paging.ts";
import {
  boolParam,
  EXAMPLE_MEMORY,
  filterParam as filterDoc,
  limitParam,
  offsetParam,
  pageSuccess,
  tagsParam,
  threadIdParam,
  typeParam,
  type RouteDoc,
} from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { Operation } from "../operation.ts";
import { pageSelection, restPage } from "../page-wire.ts";
import { createInputOf, MEMORY_FRAGMENT, restMemory, type MemoryView } from "../memory-wire.ts";
import type { RestHandler, RestRequest, RestResponse, Router } from "../router.ts";

const createMemory = new Operation<{ createMemory: MemoryView & { deduplicated: boolean } }>(/* GraphQL */ `
  mutation RestCreateMemory($input: CreateMemoryInput!) {
    createMemory(input: $input) { ...RestMemory deduplicated }
  }
  ${MEMORY_FRAGMENT}
`);

const listMemories = new Operation<{ memories: PageOf<MemoryView> }>(/* GraphQL */ `
  query RestListMemories($filter: MemoryFilter, $limit: Int, $offset: Int) {
    memories(filter: $filter, limit: $limit, offset: $offset) { ${pageSelection("RestMemory")} }
  }
  ${MEMORY_FRAGMENT}
`);

const listMemoriesAfter = new Operation<{
  memoriesConnection: { edges: { node: MemoryView }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  memories: { total: number };
}>(/* GraphQL */ `
  query RestListMemoriesAfter($filter: MemoryFilter, $first: Int, $after: String) {
    memoriesConnection(first: $first, after: $after, filter: $filter) {
      edges { node { ...RestMemory } }
      pageInfo { hasNextPage endCursor }
    }
    memories(filter: $filter, limit: 1) { total }
  }
  ${MEMORY_FRAGMENT}
`);

const createDoc: RouteDoc = {
  operationId: "createMemory",
  tag: "Memories",
  summary: "Create a memory",
  description:
    "Stores a memory owned by the API key's user. It is searchable as soon as the index has taken it in (within moments). " +
    "With `dedupe: true` (or the server's `DEDUPE` rule), a memory you already have with the same content (Unicode NFKC, " +
    "case and whitespace aside), type and thread — or, when `DEDUPE` is `near`, one at least `DEDUPE_NEAR_SIMILARITY` " +
    "similar — is answered instead (200, its own fields, `deduplicated: true`) and nothing is stored.",
  body: {
    schema: ref("schemas", "MemoryCreate"),
    examples: {
      text: {
        summary: "A text memory",
        value: { content: "I prefer tea to coffee", type: "preference", tags: ["drinks"], metadata: { source: "chat" } },
      },
      record: {
        summary: "A structured record",
        value: { content: { drink: "tea", milk: false }, type: "preference" },
      },
      deduplicated: {
        summary: "Unless you have it already",
        value: { content: "I prefer tea to coffee", type: "preference", dedupe: true },
      },
    },
  },
  success: {
    status: 201,
    description: "The memory created.",
    schema: ref("schemas", "CreatedMemory"),
    example: { ...EXAMPLE_MEMORY, ok: true },
  },
  alternative: {
    status: 200,
    description: "Deduplicated: the memory you already had, unchanged; nothing was stored.",
    schema: ref("schemas", "DeduplicatedMemory"),
    example: { ...EXAMPLE_MEMORY, ok: true, deduplicated: true },
  },
};

/** POST /api/v1/memory */
export const create: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const input = createInputOf(await body());
  const { createMemory: memory } = await createMemory.run(schema, context, { input });
  // a new memory's answer is as it always was; only a deduplicated one says so
  if (memory.deduplicated) return { status: 200, body: { ...restMemory(memory), ok: true, deduplicated: true } };
  return { status: 201, body: { ...restMemory(memory), ok: true } };
};

const listDoc: RouteDoc = {
  operationId: "listMemories",
  tag: "Memories",
  summary: "List memories",
  description: "Your memories, newest first, filtered and paged.",
  query: [
    limitParam(DEFAULT_LIST_LIMIT, "memories"),
    offsetParam("memories"),
    typeParam("Only memories of this type."),
    tagsParam("Only memories that carry every one of these tags."),
    threadIdParam("Only memories filed under this thread."),
    boolParam("is_archived", "true: only archived memories; false: only live ones; absent: both."),
    filterDoc,
    {
      name: "cursor",
      in: "query",
      description:
        "The `next_cursor` of the page before: the page after it, which memories added meanwhile do not shift. Not with `offset`.",
      schema: { type: "string" },
    },
  ],
  success: {
    ...pageSuccess("A page of memories.", "MemoryList", "memories", EXAMPLE_MEMORY, DEFAULT_LIST_LIMIT),
    example: { memories: [EXAMPLE_MEMORY], total: 1, limit: DEFAULT_LIST_LIMIT, offset: 0, has_more: false, next_cursor: null },
  },
};

/** GET /api/v1/memory */
export const list: RestHandler = async ({ query, schema, context }) => {
  query.only(["limit", "offset", "type", "tags", "thread_id", "is_archived", "filter", "cursor"]);
  const filter = filterParam(query, {
    type: query.string("type"),
    tags: query.list("tags"),
    threadId: query.string("thread_id"),
    isArchived: query.bool("is_archived"),
  });
  const [limit, offset, cursor] = [query.int("limit"), query.int("offset"), query.string("cursor")];
  if (cursor !== undefined) return listAfter(cursor, offset, limit, filter, { schema, context });
  const { memories: page } = await listMemories.run(schema, context, { filter, limit, offset });
  const last = page.hasMore ? page.items.at(-1) : undefined;
  const next_cursor = last ? cursorOf({ createdAt: new Date(last.createdAt), id: last.id }) : null;
  return { status: 200, body: { ...restPage("memories", page, restMemory), next_cursor } };
};

/** The page after a cursor: keyset paging through GraphQL's connection, with the list's total beside it. */
async function listAfter(
  cursor: unknown,
  offset: unknown,
  limit: unknown,
  filter: Record<string, unknown>,
  { schema, context }: Pick<RestRequest, "schema" | "context">,
): Promise<RestResponse> {
  if (offset !== undefined) throw invalid("cursor", "cannot be combined with offset");
  if (typeof cursor !== "string" || !isCursor(cursor)) throw invalid("cursor", "is not a cursor of this list (pass a next_cursor back)");
  const size = limit ?? DEFAULT_LIST_LIMIT;
  if (typeof size !== "number" || size < 1 || size > MAX_PAGE_SIZE) throw invalid("limit", `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  const { memoriesConnection: page, memories } = await listMemoriesAfter.run(schema, context, { filter, first: size, after: cursor });
  const next_cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  const body = {
    memories: page.edges.map((edge) => restMemory(edge.node)),
    total: memories.total,
    limit: size,
    offset: null,
    has_more: page.pageInfo.hasNextPage,
    next_cursor,
  };
  return { status: 200, body };
}

export function addMemoryRoutes(router: Router): void {
  router.add("POST", "/api/v1/memory", create, { doc: createDoc }).add("GET", "/api/v1/memory", list, { doc: listDoc });
}
