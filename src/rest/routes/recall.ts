import { isPlainObject } from "../../domain/json.ts";
import { invalid } from "../../errors.ts";
import { MEMORY_FRAGMENT, restMemory, type MemoryView } from "../memory-wire.ts";
import { Operation } from "../operation.ts";
import type { RestHandler, RestRequest, RestResponse, Router } from "../router.ts";

const recall = new Operation<{
  recall: { queryType: string; results: { relevance: number; memory: MemoryView }[] };
}>(/* GraphQL */ `
  query RestRecall($query: String!, $limit: Int, $threadId: ID) {
    recall(query: $query, limit: $limit, threadId: $threadId) {
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

/** POST /api/v1/memory/recall with {query, limit?, thread_id?} */
export const recallPost: RestHandler = async (request) => {
  request.query.only([]);
  const body = await request.body();
  if (!isPlainObject(body)) throw invalid("body", "must be a JSON object");
  for (const key of Object.keys(body)) {
    if (!["query", "limit", "thread_id"].includes(key)) throw invalid(key, "is not a field of a recall request");
  }
  return run(request, { query: body.query, limit: body.limit, threadId: body.thread_id });
};

/** GET /api/v1/memory/recall?query=&limit=&thread_id= */
export const recallGet: RestHandler = async (request) => {
  const { query } = request;
  query.only(["query", "limit", "thread_id"]);
  return run(request, { query: query.string("query"), limit: query.int("limit"), threadId: query.string("thread_id") });
};

export function addRecallRoutes(router: Router): void {
  router.add("POST", "/api/v1/memory/recall", recallPost).add("GET", "/api/v1/memory/recall", recallGet);
}
