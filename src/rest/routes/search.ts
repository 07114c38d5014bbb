import { DEFAULT_SEARCH_LIMIT } from "../../domain/search.ts";
import { filterParam, queryBody } from "../filter-param.ts";
import { EMBEDDER_DOWN, EXAMPLE_MEMORY, filterParam as filterDoc, limitParam, queryParam, tagsParam, typeParam, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { Operation } from "../operation.ts";
import { MEMORY_FRAGMENT, restMemory, type MemoryView } from "../memory-wire.ts";
import type { RestHandler, RestRequest, RestResponse, Router } from "../router.ts";

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

const searchDoc: RouteDoc = {
  operationId: "searchMemories",
  tag: "Search",
  summary: "Search memories (semantic)",
  description:
    "Your live (not archived) memories nearest to the query by meaning (sentence vectors), blended with those that " +
    "share its words (BM25): a paraphrase finds its memory, and so does a word only one memory holds.",
  query: [
    queryParam("What to look for, in natural language.", "hot drinks"),
    limitParam(DEFAULT_SEARCH_LIMIT, "results"),
    typeParam("Only memories of this type."),
    tagsParam("Only memories that carry every one of these tags."),
    {
      name: "from_date",
      in: "query",
      description: "Only memories created at or after this time.",
      schema: { type: "string", format: "date-time" },
    },
    {
      name: "to_date",
      in: "query",
      description: "Only memories created at or before this time.",
      schema: { type: "string", format: "date-time" },
    },
    filterDoc,
  ],
  success: {
    status: 200,
    description: "The nearest memories, nearest first.",
    schema: ref("schemas", "SearchResults"),
    example: { results: [{ ...EXAMPLE_MEMORY, score: 0.82 }], total: 1 },
  },
  errors: { SERVICE_UNAVAILABLE: EMBEDDER_DOWN },
};

async function run({ schema, context }: RestRequest, variables: Record<string, unknown>): Promise<RestResponse> {
  const { searchMemories: found } = await searchMemories.run(schema, context, variables);
  const results = found.results.map((hit) => ({ ...restMemory(hit.memory), score: hit.score }));
  return { status: 200, body: { results, total: results.length } };
}

/** GET /api/v1/memory/search */
export const search: RestHandler = async (request) => {
  const { query } = request;
  query.only(["query", "limit", "type", "tags", "from_date", "to_date", "filter"]);
  return run(request, {
    query: query.string("query"),
    limit: query.int("limit"),
    filter: filterParam(query, {
      type: query.string("type"),
      tags: query.list("tags"),
      fromDate: query.string("from_date"),
      toDate: query.string("to_date"),
    }),
  });
};

const searchPostDoc: RouteDoc = {
  operationId: "searchMemoriesPost",
  tag: "Search",
  summary: "Search memories (semantic), with the inputs in the body",
  description: "The same as GET /api/v1/memory/search, for a filter too long or too nested for a query string.",
  body: {
    schema: ref("schemas", "SearchRequest"),
    examples: {
      filtered: { summary: "Within a project", value: { query: "deadline", limit: 5, filter: { metadata: [{ path: "project", eq: "apollo" }] } } },
    },
  },
  success: searchDoc.success,
  errors: searchDoc.errors,
};

/** POST /api/v1/memory/search with {query, limit?, filter?} */
export const searchPost: RestHandler = async (request) => {
  const { body, filter } = await queryBody(request, "search", ["query", "limit", "filter"]);
  return run(request, { query: body.query, limit: body.limit, filter });
};

export function addSearchRoutes(router: Router): void {
  router.add("GET", "/api/v1/memory/search", search, { doc: searchDoc }).add("POST", "/api/v1/memory/search", searchPost, { doc: searchPostDoc, reads: true });
}
