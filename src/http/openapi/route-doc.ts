import { MAX_PAGE_SIZE } from "../../domain/paging.ts";
import type { ErrorCode } from "../../errors.ts";
import type { Parameter, Schema } from "./types.ts";

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
    /** The first is the one the curl example on /docs sends. */
    examples: Record<string, { summary: string; value: unknown }>;
  };
  success: { status: 200 | 201; description: string; schema: Schema; example?: unknown };
  errors?: RouteErrors;
}

/** Errors of a route beyond the ones every route of its kind can answer: when, and a message it gives. */
export type RouteErrors = Partial<Record<ErrorCode, { when: string; example: string }>>;

/** Routes keyed by method and router pattern, e.g. `GET /api/v1/memories/:id`. */
export type RouteDocs = Record<string, RouteDoc>;

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
  created_at: "2026-01-31T09:30:00.000Z",
  updated_at: "2026-01-31T09:30:00.000Z",
};
