import type { Memory } from "../domain/memory.ts";
import { objectSchema, timestamp, uuid } from "./openapi/schema-parts.ts";
import { fragment, type GraphQLView } from "./wire-shape.ts";

/** The memory fields the deprecated routes answer with, by their GraphQL names. */
const LEGACY_FIELDS = ["id", "content", "data", "type", "workspaceId", "legacyUserId", "createdAt", "updatedAt"] as const;

export const LEGACY_FRAGMENT = fragment("LegacyMemory", "Memory", LEGACY_FIELDS);

/** A memory as the LegacyMemory fragment returns it. */
export type LegacyView = GraphQLView<Memory, (typeof LEGACY_FIELDS)[number]>;

/** The legacy shape: camelCase, `kind` for type, the legacy userId echoed. */
export const restLegacyMemory = (m: LegacyView) => ({
  id: m.id,
  workspaceId: m.workspaceId,
  userId: m.legacyUserId,
  content: m.data ?? m.content,
  kind: m.type,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

export const LEGACY_MEMORY_SCHEMA = objectSchema<ReturnType<typeof restLegacyMemory>>(
  "A memory in the deprecated routes' camelCase shape.",
  {
    id: uuid("Assigned by the service; usable with /api/v1/memories/{id}."),
    workspaceId: { type: ["string", "null"], description: "Null for a memory created on the current routes." },
    userId: {
      type: ["string", "null"],
      description: "The userId the creating request sent, echoed; it never decides ownership.",
    },
    content: { oneOf: [{ type: "string" }, { type: "object" }] },
    kind: { type: ["string", "null"], description: "The memory's type, under its old name." },
    createdAt: timestamp("When it was created."),
    updatedAt: timestamp("When it last changed."),
  },
);
