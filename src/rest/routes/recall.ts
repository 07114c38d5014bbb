import { DEFAULT_RECALL_LIMIT } from "../../domain/recall.ts";
import { filterParam, queryBody } from "../filter-param.ts";
import { EMBEDDER_DOWN, EXAMPLE_MEMORY, filterParam as filterDoc, limitParam, queryParam, threadIdParam, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { MEMORY_FRAGMENT, restMemory, type MemoryView } from "../memory-wire.ts";
import { Operation } from "../operation.ts";
import type { RestHandler, RestRequest, RestResponse, Router } from "../router.ts";

const recall = new Operation<{
  recall: { queryType: string; results: { relevance: number; memory: MemoryView }[] };
}>(/* GraphQL */ `
  query RestRecall($query: String!, $limit: Int, $threadId: ID, $filter: SearchFilter) {
    recall(query: $query, limit: $limit, threadId: $threadId, filter: $filter) {
      queryType
      results { relevance memory { ...RestMemory } }
    }
  }
  ${MEMORY_FRAGMENT}
`);

async function run({ schema, context }: RestRequest, variables: Record<string, unknown>): Promise<RestResponse> {
  const { recall: found } = await recall.run(schema, context, variables);
  const results = found.results.map((hit) => ({ ...restMemory(hit.memory), relevance: hit.relevance }));
  return { status: 200, body: { results, total: results.length, query_type: found.queryType } };
}

const recallPostDoc: RouteDoc = {
  operationId: "recall",
  tag: "Search",
  summary: "Recall (hybrid)",
  description:
    "Conversational, profile-aware lookup: a question about the user answers from their preference memories; anything " +
    "else combines lexical (BM25) and semantic search, within a thread when thread_id is given. Archived memories are left out.",
  body: {
    schema: ref("schemas", "RecallRequest"),
    examples: {
      question: { summary: "A question about the user", value: { query: "What does the user like to drink?", limit: 5 } },
    },
  },
  success: {
    status: 200,
    description: "The memories recalled, most relevant first.",
    schema: ref("schemas", "RecallResults"),
    example: { results: [{ ...EXAMPLE_MEMORY, relevance: 1 }], total: 1, query_type: "profile" },
  },
  errors: { SERVICE_UNAVAILABLE: EMBEDDER_DOWN },
};

/** POST /api/v1/memory/recall with {query, limit?, thread_id?} */
export const recallPost: RestHandler = async (request) => {
  const { body, filter } = await queryBody(request, "recall", ["query", "limit", "thread_id", "filter"]);
  return run(request, { query: body.query, limit: body.limit, threadId: body.thread_id, filter });
};

const recallGetDoc: RouteDoc = {
  operationId: "recallGet",
  tag: "Search",
  summary: "Recall (hybrid), by query string",
  description: "The same as POST /api/v1/memory/recall, with the inputs in the query string.",
  query: [
    queryParam("What the conversation is about, or a question about the user.", "drinks"),
    limitParam(DEFAULT_RECALL_LIMIT, "memories"),
    threadIdParam("Recall within this thread of yours only."),
    filterDoc,
  ],
  success: {
    status: 200,
    description: "The memories recalled, most relevant first.",
    schema: ref("schemas", "RecallResults"),
  },
  errors: { SERVICE_UNAVAILABLE: EMBEDDER_DOWN },
};

/** GET /api/v1/memory/recall?query=&limit=&thread_id= */
export const recallGet: RestHandler = async (request) => {
  const { query } = request;
  query.only(["query", "limit", "thread_id", "filter"]);
  const filter = filterParam(query, {});
  return run(request, { query: query.string("query"), limit: query.int("limit"), threadId: query.string("thread_id"), filter });
};

export function addRecallRoutes(router: Router): void {
  router
    .add("POST", "/api/v1/memory/recall", recallPost, { doc: recallPostDoc, reads: true })
    .add("GET", "/api/v1/memory/recall", recallGet, { doc: recallGetDoc });
}
