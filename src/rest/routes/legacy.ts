import { isPlainObject } from "../../domain/json.ts";
import { invalid } from "../../errors.ts";
import { DEFAULT_LIST_LIMIT } from "../../domain/memory.ts";
import type { PageOf } from "../../domain/paging.ts";
import { MAX_LEGACY_ID_CHARS } from "../../graphql/legacy.ts";
import { LegacyNotes, TTL_FIELDS } from "../legacy-fields.ts";
import { LEGACY_FRAGMENT, restLegacyMemory, type LegacyView } from "../legacy-wire.ts";
import { EXAMPLE_MEMORY_ID, limitParam, offsetParam, pageSuccess, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { Operation } from "../operation.ts";
import { pageSelection, restPage } from "../page-wire.ts";
import { LEGACY_COLLECTION, LEGACY_DEPRECATION } from "../legacy-deprecation.ts";
import type { RestHandler, Router } from "../router.ts";

const legacyCreate = new Operation<{ legacyCreateMemory: LegacyView }>(/* GraphQL */ `
  mutation RestLegacyCreate($input: LegacyCreateMemoryInput!) { legacyCreateMemory(input: $input) { ...LegacyMemory } }
  ${LEGACY_FRAGMENT}
`);

const legacyList = new Operation<{
  legacyMemories: PageOf<LegacyView>;
}>(/* GraphQL */ `
  query RestLegacyList($workspaceId: String!, $limit: Int, $offset: Int) {
    legacyMemories(workspaceId: $workspaceId, limit: $limit, offset: $offset) {
      ${pageSelection("LegacyMemory")}
    }
  }
  ${LEGACY_FRAGMENT}
`);

const FIELDS = new Set(["workspaceId", "userId", "content", "kind", ...TTL_FIELDS]);

const EXAMPLE_LEGACY_MEMORY = {
  id: EXAMPLE_MEMORY_ID,
  workspaceId: "ws_1",
  userId: "u_42",
  content: "Prefers tea",
  kind: "preference",
  createdAt: "2026-01-31T09:30:00.000Z",
  updatedAt: "2026-01-31T09:30:00.000Z",
};

const MIGRATE = "See the migration guide at [/docs/migration](/docs/migration).";

const createDoc: RouteDoc = {
  operationId: "legacyCreateMemory",
  tag: "Legacy (deprecated)",
  summary: "Create a memory (deprecated: use POST /api/v1/memory)",
  description:
    "The workspace-scoped create. The owner is the API key's user whatever userId says; kind is stored as the type. " +
    `Bodies and answers keep the old camelCase names. ${MIGRATE}`,
  body: {
    schema: ref("schemas", "LegacyMemoryCreate"),
    examples: {
      legacy: {
        summary: "A legacy create",
        value: { workspaceId: "ws_1", userId: "u_42", content: "Prefers tea", kind: "preference" },
      },
    },
  },
  success: {
    status: 201,
    description: "The memory created, in the legacy shape.",
    schema: ref("schemas", "LegacyMemory"),
    example: EXAMPLE_LEGACY_MEMORY,
  },
};

/** POST /api/v1/memories (deprecated) */
export const create: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const raw = await body();
  if (!isPlainObject(raw)) throw invalid("body", "must be a JSON object");
  for (const key of Object.keys(raw)) {
    if (!FIELDS.has(key)) throw invalid(key, "is not a field of this (deprecated) route");
  }
  // userId is stored and echoed back as the legacy API did, but the key's user owns the memory
  const notes = new LegacyNotes()
    .scope(raw.userId === undefined ? [] : ["userId"])
    .ttl(TTL_FIELDS.filter((name) => Object.hasOwn(raw, name)));
  const content = raw.content;
  if (content !== undefined && content !== null && typeof content !== "string" && !isPlainObject(content)) {
    throw invalid("content", "must be a string or a JSON object");
  }
  const input = {
    workspaceId: raw.workspaceId,
    userId: raw.userId,
    kind: raw.kind,
    ...(isPlainObject(content) ? { data: content } : { content }),
  };
  const { legacyCreateMemory: memory } = await legacyCreate.run(schema, context, { input });
  return { status: 201, body: restLegacyMemory(memory), ...notes.headers(LEGACY_DEPRECATION.warning) };
};

const listDoc: RouteDoc = {
  operationId: "legacyListMemories",
  tag: "Legacy (deprecated)",
  summary: "List a workspace's memories (deprecated: use GET /api/v1/memory)",
  description: `The memories of yours that were created in this workspace, newest first. ${MIGRATE}`,
  query: [
    {
      name: "workspaceId",
      in: "query",
      required: true,
      description: "The workspace the memories were created in.",
      schema: { type: "string", minLength: 1, maxLength: MAX_LEGACY_ID_CHARS },
      example: "ws_1",
    },
    {
      name: "userId",
      in: "query",
      description: "Sent by legacy clients: accepted and ignored (the API key decides whose memories these are); X-API-Warn says so.",
      schema: { type: "string" },
    },
    limitParam(DEFAULT_LIST_LIMIT, "memories"),
    offsetParam("memories"),
  ],
  success: pageSuccess(
    "A page of the workspace's memories, in the legacy shape.",
    "LegacyMemoryList",
    "memories",
    EXAMPLE_LEGACY_MEMORY,
    DEFAULT_LIST_LIMIT,
  ),
};

/** GET /api/v1/memories?workspaceId= (deprecated) */
export const list: RestHandler = async ({ query, schema, context }) => {
  query.only(["workspaceId", "userId", "limit", "offset"]);
  const notes = new LegacyNotes().scope(query.string("userId") === undefined ? [] : ["userId"]);
  const { legacyMemories: page } = await legacyList.run(schema, context, {
    workspaceId: query.string("workspaceId"),
    limit: query.int("limit"),
    offset: query.int("offset"),
  });
  return {
    status: 200,
    body: restPage("memories", page, restLegacyMemory),
    ...notes.headers(LEGACY_DEPRECATION.warning),
  };
};

export function addLegacyRoutes(router: Router): void {
  router
    .add("POST", LEGACY_COLLECTION, create, { doc: createDoc, deprecation: LEGACY_DEPRECATION, camelCaseFields: true })
    .add("GET", LEGACY_COLLECTION, list, { doc: listDoc, deprecation: LEGACY_DEPRECATION, camelCaseFields: true });
}
