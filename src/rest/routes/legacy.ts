import { isPlainObject } from "../../domain/json.ts";
import { invalid } from "../../errors.ts";
import { LegacyNotes, TTL_FIELDS } from "../legacy-fields.ts";
import { Operation } from "../operation.ts";
import type { Deprecation, RestHandler, Router } from "../router.ts";

/** The deprecated workspace-scoped collection routes: dates from the API specification ("Versioning"). */
export const LEGACY_DEPRECATION: Deprecation = {
  sunset: new Date("2026-06-30T23:59:59Z"),
  link: "/docs/migration",
  warning: "Deprecated: use /api/v1/memory (user-scoped through the API key); see /docs/migration",
};

const LEGACY_FRAGMENT = /* GraphQL */ `
  fragment LegacyMemory on Memory { id content data type workspaceId legacyUserId createdAt updatedAt }
`;

interface LegacyView {
  id: string;
  content: string;
  data: Record<string, unknown> | null;
  type: string | null;
  workspaceId: string | null;
  legacyUserId: string | null;
  createdAt: string;
  updatedAt: string;
}

const legacyCreate = new Operation<{ legacyCreateMemory: LegacyView }>(/* GraphQL */ `
  mutation RestLegacyCreate($input: LegacyCreateMemoryInput!) { legacyCreateMemory(input: $input) { ...LegacyMemory } }
  ${LEGACY_FRAGMENT}
`);

const legacyList = new Operation<{
  legacyMemories: { items: LegacyView[]; total: number; limit: number; offset: number; hasMore: boolean };
}>(/* GraphQL */ `
  query RestLegacyList($workspaceId: String!, $limit: Int, $offset: Int) {
    legacyMemories(workspaceId: $workspaceId, limit: $limit, offset: $offset) {
      items { ...LegacyMemory } total limit offset hasMore
    }
  }
  ${LEGACY_FRAGMENT}
`);

/** The legacy shape: camelCase, `kind` for type, the legacy userId echoed. */
const legacyMemory = (m: LegacyView) => ({
  id: m.id,
  workspaceId: m.workspaceId,
  userId: m.legacyUserId,
  content: m.data ?? m.content,
  kind: m.type,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

const FIELDS = new Set(["workspaceId", "userId", "content", "kind", ...TTL_FIELDS]);

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
  return { status: 201, body: legacyMemory(memory), ...notes.headers(LEGACY_DEPRECATION.warning) };
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
    body: { memories: page.items.map(legacyMemory), total: page.total, limit: page.limit, offset: page.offset, has_more: page.hasMore },
    ...notes.headers(LEGACY_DEPRECATION.warning),
  };
};

export function addLegacyRoutes(router: Router): void {
  router
    .add("POST", "/api/v1/memories", create, { deprecation: LEGACY_DEPRECATION, camelCaseFields: true })
    .add("GET", "/api/v1/memories", list, { deprecation: LEGACY_DEPRECATION, camelCaseFields: true });
}
