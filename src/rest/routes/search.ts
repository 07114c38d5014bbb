import { Operation } from "../operation.ts";
import { MEMORY_FRAGMENT, restMemory, type MemoryView } from "../memory-wire.ts";
import type { RestHandler, Router } from "../router.ts";

const searchMemories = new Operation<{ searchMemories: { results: { score: number; memory: MemoryView }[] } }>(
  /* GraphQL */ `
  query RestSearchMemories($query: String!, $limit: Int, $filter: SearchFilter) {
    searchMemories(query: $query, limit: $limit, filter: $filter) {
      results { score memory { ...RestMemory } }
    }
  }
  ${MEMORY_FRAGMENT}
`,
);

/** GET /api/v1/memory/search */
export const search: RestHandler = async ({ query, schema, context }) => {
  query.only(["query", "limit", "type", "tags", "from_date", "to_date"]);
  const { searchMemories: found } = await searchMemories.run(schema, context, {
    query: query.string("query"),
    limit: query.int("limit"),
    filter: {
      type: query.string("type"),
      tags: query.list("tags"),
      fromDate: query.string("from_date"),
      toDate: query.string("to_date"),
    },
  });
  const results = found.results.map((hit) => ({ ...restMemory(hit.memory), score: hit.score }));
  return { status: 200, body: { results, total: results.length } };
};

export function addSearchRoutes(router: Router): void {
  router.add("GET", "/api/v1/memory/search", search);
}
