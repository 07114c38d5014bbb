import type { ObjectFieldBuilder } from "@pothos/core";
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import type { Memory } from "../domain/memory.ts";
import type { SchemaTypes } from "./builder.ts";
import type { Context } from "./context.ts";
import { MemoryRef } from "./memory.ts";

/** A memory that search or recall found, with its own measure of the match. */
interface Hit {
  memory: Memory;
}

/**
 * The fields of a hit (SearchHit, RecallHit): the memory's id, content and type at hand, the hit's `own` fields
 * (its measure), then the memory itself.
 */
export const hitFields = <T extends Hit, Own extends object>(t: ObjectFieldBuilder<SchemaTypes, T>, own: Own) => ({
  id: t.id({ resolve: (hit) => hit.memory.id }),
  content: t.string({ resolve: (hit) => hit.memory.content }),
  type: t.string({ nullable: true, resolve: (hit) => hit.memory.type }),
  ...own,
  memory: t.field({ type: MemoryRef, resolve: (hit) => hit.memory }),
});

// the columns a hit reads itself, besides what its `memory` field asks for
const HIT_COLUMNS = { id: true, content: true, type: true } as const;

/** What a query answering `results { … memory { … } }` reads of each memory found. */
export function hitSelect(context: Context, info: GraphQLResolveInfo) {
  const nested = queryFromInfo({ context, info, path: ["results", "memory"], typeName: "Memory" });
  return { ...HIT_COLUMNS, ...nested.select };
}
