import { DEFAULT_LIST_LIMIT } from "../../domain/memories.ts";
import { MAX_LEGACY_ID_CHARS } from "../../graphql/legacy.ts";
import { EXAMPLE_MEMORY_ID, limitParam, offsetParam, type RouteDocs } from "./route-doc.ts";
import { ref } from "./types.ts";

const EXAMPLE_LEGACY_MEMORY = {
  id: EXAMPLE_MEMORY_ID,
  workspaceId: "ws_1",
  userId: "u_42",
  content: "Prefers tea",
  kind: "preference",
  createdAt: "2026-01-31T09:30:00.000Z",
  updatedAt: "2026-01-31T09:30:00.000Z",
};

const MIGRATE = "See the migration guide at /docs/migration.";

/** The deprecated workspace-scoped collection routes (src/rest/routes/legacy.ts). */
export const legacyRoutes: RouteDocs = {
  "POST /api/v1/memories": {
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
  },
  "GET /api/v1/memories": {
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
    success: {
      status: 200,
      description: "A page of the workspace's memories, in the legacy shape.",
      schema: ref("schemas", "LegacyMemoryList"),
      example: { memories: [EXAMPLE_LEGACY_MEMORY], total: 1, limit: DEFAULT_LIST_LIMIT, offset: 0, has_more: false },
    },
  },
};
