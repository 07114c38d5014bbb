import { MAX_PAGE_SIZE } from "../../domain/paging.ts";
import type { ErrorCode } from "../../errors.ts";
import { ref, type Parameter, type Schema } from "./types.ts";

/**
 * What a REST route's documentation says beyond what the router and the HTTP layer already fix (method, path,
 * authentication, rate limits, deprecation, the errors every route can answer): document.ts combines the two.
 */
export interface RouteDoc {
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** One entry per `:name` segment of the route's pattern. */
  pathParams?: Record<string, { description: string; example: string }>;
  query?: Parameter[];
  body?: {
    schema: Schema;
    examples: Record<string, { summary: string; value: unknown }>;
    /** The media types the body may be sent as; application/json unless given. */
    contentTypes?: string[];
  };
  /** `contentType`: application/json unless given (a streamed NDJSON answer: the schema is of one line). */
  success: { status: 200 | 201; description: string; schema: Schema; example?: unknown; contentType?: string };
  /** Another success the route may answer with instead (a create that stored nothing: 200). */
  alternative?: RouteDoc["success"];
  errors?: RouteErrors;
}

/** Errors of a route beyond the ones every route of its kind can answer: when, and a message it gives. */
export type RouteErrors = Partial<Record<ErrorCode, { when: string; example: string }>>;

/** A list route's success: the page `restPage` answers, its example one `item` under `name`. */
export const pageSuccess = (
  description: string,
  listSchema: string,
  name: string,
  item: unknown,
  limit: number,
): RouteDoc["success"] => ({
  status: 200,
  description,
  schema: ref("schemas", listSchema),
  example: { [name]: [item], total: 1, limit, offset: 0, has_more: false },
});

const INT32_MAX = 2_147_483_647;

export const limitParam = (defaultLimit: number, what: string): Parameter => ({
  name: "limit",
  in: "query",
  description: `How many ${what} to return, 1 to ${MAX_PAGE_SIZE}.`,
  schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: defaultLimit },
});

export const offsetParam = (what: string): Parameter => ({
  name: "offset",
  in: "query",
  description: `How many ${what} to skip (newest first).`,
  schema: { type: "integer", minimum: 0, maximum: INT32_MAX, default: 0 },
});

export const boolParam = (name: string, description: string, defaultValue?: boolean): Parameter => ({
  name,
  in: "query",
  description: `${description} \`true\`/\`1\` or \`false\`/\`0\`.`,
  schema: { type: "boolean", ...(defaultValue === undefined ? {} : { default: defaultValue }) },
});

export const typeParam = (description: string): Parameter => ({ name: "type", in: "query", description, schema: { type: "string" } });

/** A memory filter as JSON: the structure GraphQL's MemoryFilter has, with snake_case names. */
export const filterParam: Parameter = {
  name: "filter",
  in: "query",
  description:
    "A filter with boolean logic and metadata conditions, as JSON (URL-encoded): fields `type`, `tags`, `thread_id`, " +
    "`metadata` (a list of `{path, eq | in | gt | gte | lt | lte | exists}`; `path` is dot-separated keys, a list " +
    "there passes when one element does, ranges compare numbers or ISO 8601 dates), and `and`, `or` (lists of " +
    "filters) and `not` (a filter); the fields of one object must all hold. They nest at most 5 levels deep; at most 32 conditions. " +
    "A field may not be given both here and as its own parameter.",
  schema: { type: "string" },
  example: JSON.stringify({ or: [{ metadata: [{ path: "priority", gte: 3 }] }, { type: "task" }] }),
};

export const threadIdParam = (description: string): Parameter => ({
  name: "thread_id",
  in: "query",
  description,
  schema: { type: "string", format: "uuid" },
});

/** The text to look for, of search and recall. */
export const queryParam = (description: string, example: string): Parameter => ({
  name: "query",
  in: "query",
  required: true,
  description,
  schema: { type: "string", minLength: 1 },
  example,
});

/** The error of the routes that embed a query. */
export const EMBEDDER_DOWN = {
  when: "The embedding service (OPENAI_BASE_URL) did not answer; retry shortly.",
  example: "The embedding service is unavailable; try again shortly",
};

export const tagsParam = (description: string): Parameter => ({
  name: "tags",
  in: "query",
  description: `${description} Comma-separated, e.g. \`tags=work,urgent\`.`,
  schema: { type: "string" },
  example: "drinks",
});

/** The scope legacy clients still send to the record routes: accepted and ignored (src/rest/legacy-fields.ts). */
export const legacyScopeParams: Parameter[] = ["workspaceId", "userId"].map((name) => ({
  name,
  in: "query",
  description: "Sent by legacy clients: accepted and ignored (the API key decides whose memory it is); X-API-Warn says so.",
  deprecated: true,
  schema: { type: "string" },
}));

export const EXAMPLE_MEMORY_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
export const EXAMPLE_THREAD_ID = "0190a1b2-0000-7e5f-8a9b-0c1d2e3f4a5b";

export const EXAMPLE_MEMORY = {
  id: EXAMPLE_MEMORY_ID,
  content: "I prefer tea to coffee",
  type: "preference",
  tags: ["drinks"],
  metadata: { source: "chat" },
  thread_id: null,
  is_archived: false,
  expires_at: null,
  created_at: "2026-01-31T09:30:00.000Z",
  updated_at: "2026-01-31T09:30:00.000Z",
};
