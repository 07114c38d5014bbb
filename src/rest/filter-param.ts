import { isPlainObject } from "../domain/json.ts";
import { invalid } from "../errors.ts";
import { checkJsonDepth } from "../transport/body.ts";
import type { RestRequest } from "./router.ts";
import type { QueryInputs } from "./query-params.ts";

/** A node of the `filter` JSON as REST clients write it (snake_case), ready for GraphQL's MemoryFilter. */
type FilterNode = Record<string, unknown>;

const isNode = (value: unknown): value is FilterNode => typeof value === "object" && value !== null && !Array.isArray(value);

/** The filter fields REST spells otherwise than GraphQL; any other name is passed on as sent. */
// (maps, not objects: a field named `__proto__` or `constructor` must not find Object.prototype's)
const GRAPHQL_NAMES: ReadonlyMap<string, string> = new Map([
  ["thread_id", "threadId"],
  ["is_archived", "isArchived"],
  ["from_date", "fromDate"],
  ["to_date", "toDate"],
]);
const graphqlName = (name: string) => GRAPHQL_NAMES.get(name) ?? name;
const REST_NAMES: ReadonlyMap<string, string> = new Map([...GRAPHQL_NAMES].map(([rest, graphql]) => [graphql, rest]));
/**
 * A filter field's name as REST spells it, for a message about a name the filter does not take: a list's filter
 * has no `from_date`, which graphqlNode has renamed `fromDate` by then.
 */
export const restFilterName = (name: string): string => REST_NAMES.get(name) ?? name;

/**
 * A filter's fields in GraphQL's names: `thread_id`, `is_archived`, `from_date` as REST writes them (GraphQL's own
 * spelling is taken as well); and/or/not nest. Anything else goes on to be checked, and an error names it as the
 * caller wrote it.
 */
function graphqlNode(node: unknown): unknown {
  if (!isNode(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (key === "and" || key === "or") return [key, Array.isArray(value) ? value.map(graphqlNode) : value];
      if (key === "not") return [key, graphqlNode(value)];
      return [graphqlName(key), value];
    }),
  );
}

/**
 * The `filter` parameter (URL-encoded JSON: `{"metadata":[{"path":"project","eq":"apollo"}]}`), merged with the
 * route's simple filter parameters; the same field given both ways is refused rather than guessed at.
 */
export function filterParam(query: QueryInputs, simple: FilterNode): FilterNode {
  const raw = query.string("filter");
  const given = Object.fromEntries(Object.entries(simple).filter(([, value]) => value !== undefined));
  if (raw === undefined) return given;
  const filter = restFilter(raw);
  const twice = Object.keys(given).find((key) => key in filter);
  if (twice) throw invalid("filter", `names ${restFilterName(twice)}, which is also given as its own parameter`);
  return { ...filter, ...given };
}

/** A `filter` as a client sent it (JSON text, or JSON already: MCP arguments, a body's field) in GraphQL's names. */
export function restFilter(raw: unknown): FilterNode {
  const parsed = typeof raw === "string" ? parseJson(raw) : raw;
  if (!isNode(parsed)) throw invalid("filter", "must be a JSON object");
  return graphqlNode(parsed) as FilterNode;
}

function parseJson(text: string): unknown {
  checkJsonDepth(text, "filter");
  try {
    return JSON.parse(text);
  } catch {
    throw invalid("filter", 'must be a JSON object, e.g. {"metadata":[{"path":"project","eq":"apollo"}]}');
  }
}

/**
 * The body of a POST search or recall (`what`: "search", "recall"): a JSON object of the `fields` named, with no
 * query string, and its `filter` in GraphQL's names.
 */
export async function queryBody(request: RestRequest, what: string, fields: readonly string[]): Promise<{ body: Record<string, unknown>; filter?: FilterNode }> {
  request.query.only([]);
  const body = await request.body();
  if (!isPlainObject(body)) throw invalid("body", "must be a JSON object");
  for (const key of Object.keys(body)) if (!fields.includes(key)) throw invalid(key, `is not a field of a ${what} request`);
  return body.filter == null ? { body } : { body, filter: restFilter(body.filter) };
}
