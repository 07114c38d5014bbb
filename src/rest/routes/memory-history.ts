import { DEFAULT_HISTORY_LIMIT, type MemoryVersion } from "../../domain/history.ts";
import type { PageOf } from "../../domain/paging.ts";
import { notFound } from "../../errors.ts";
import { restVersion } from "../memory-wire.ts";
import { EXAMPLE_MEMORY, EXAMPLE_MEMORY_ID, limitParam, offsetParam, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { Operation } from "../operation.ts";
import { restPage } from "../page-wire.ts";
import type { RestHandler, Router } from "../router.ts";

type Version = Omit<MemoryVersion, "changedAt"> & { changedAt: string };

// the memory itself too: one written before history was kept (a data directory from an earlier build) has no
// versions, and is found all the same
const memoryHistory = new Operation<{ memoryHistory: PageOf<Version>; live: { id: string } | null }>(/* GraphQL */ `
  query RestMemoryHistory($id: ID!, $limit: Int, $offset: Int) {
    memoryHistory(id: $id, limit: $limit, offset: $offset) {
      items { version action changedAt keyId keyName before after }
      total limit offset hasMore
    }
    live: memory(id: $id) { id }
  }
`);

const historyDoc: RouteDoc = {
  operationId: "getMemoryHistory",
  tag: "Memories",
  summary: "A memory's history",
  description:
    "Every change to the memory, newest first: the memory before and after, when, and by which key. Readable after the memory is deleted, for HISTORY_RETENTION_DAYS (30 by default). A memory written before its data was upgraded to keep history has none until its next change.",
  pathParams: { id: { description: "The memory's id, live or deleted.", example: EXAMPLE_MEMORY_ID } },
  query: [limitParam(DEFAULT_HISTORY_LIMIT, "versions"), offsetParam("versions")],
  success: {
    status: 200,
    description: "A page of the memory's versions.",
    schema: ref("schemas", "MemoryHistory"),
    example: {
      history: [{ version: 1, action: "created", changed_at: EXAMPLE_MEMORY.created_at, key_id: EXAMPLE_MEMORY_ID, key_name: "laptop", before: null, after: EXAMPLE_MEMORY }],
      total: 1,
      limit: DEFAULT_HISTORY_LIMIT,
      offset: 0,
      has_more: false,
    },
  },
  errors: { NOT_FOUND: { when: "No memory with this id is or was yours (or its history has been purged).", example: "Memory not found" } },
};

/** GET /api/v1/memories/{id}/history */
export const history: RestHandler = async ({ params, query, schema, context }) => {
  query.only(["limit", "offset"]);
  const { memoryHistory: page, live } = await memoryHistory.run(schema, context, { id: params.id, limit: query.int("limit"), offset: query.int("offset") });
  if (page.total === 0 && !live) throw notFound("Memory");
  const body = restPage("history", page, restVersion);
  return { status: 200, body };
};

export function addMemoryHistoryRoutes(router: Router): void {
  router.add("GET", "/api/v1/memories/:id/history", history, { doc: historyDoc });
}
