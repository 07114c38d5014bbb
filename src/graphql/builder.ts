import SchemaBuilder from "@pothos/core";
import ComplexityPlugin from "@pothos/plugin-complexity";
import type { GraphQLField } from "graphql";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import type { JsonObject, JsonValue } from "../domain/json.ts";
import { DEFAULT_LIST_LIMIT } from "../domain/memory.ts";
import type PrismaTypes from "../generated/pothos-prisma-types.ts";
import { getDatamodel } from "../generated/pothos-prisma-types.ts";
import { ARGS_CHECK_PLUGIN } from "./args-check-plugin.ts";
import type { Context } from "./context.ts";

interface BuilderTypes {
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    ID: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: JsonValue; Output: unknown };
    JSONObject: { Input: JsonObject; Output: unknown };
  };
}

/**
 * What a field costs: 1, and for a paged field (limit, or a connection's first or last) its selection once per item
 * it may return. Other lists count their selection once: their items are a page's, counted on the page, or few (a
 * user's keys and webhooks); batchCreateMemories counts its items itself.
 */
function fieldCost(args: Record<string, unknown>, _context: Context, field: GraphQLField<unknown, Context>) {
  const size = [args.limit, args.first, args.last].find((value) => typeof value === "number");
  if (typeof size === "number") return { field: 1, multiplier: Math.max(0, size) };
  // a connection asked for neither first nor last: its default page
  if (field.args.some((arg) => arg.name === "first")) return { field: 1, multiplier: DEFAULT_LIST_LIMIT };
  // a multiplier stated, since the plugin gives lists 10 otherwise
  return { field: 1, multiplier: 1 };
}

export type SchemaTypes = PothosSchemaTypes.ExtendDefaultTypes<BuilderTypes>;

export const builder = new SchemaBuilder<BuilderTypes>({
  plugins: [ARGS_CHECK_PLUGIN, ComplexityPlugin, PrismaPlugin, RelayPlugin],
  // each field's cost, which useCostLimit checks before a document runs (so not at its root fields, as the plugin would)
  complexity: { disabled: true, fieldComplexity: fieldCost },
  defaultFieldNullability: false,
  // connections only: no global ids, no node(id) query
  relay: { clientMutationId: "omit", cursorType: "String", nodeQueryOptions: false, nodesQueryOptions: false },
  prisma: {
    // one schema serves every database the process opens (tests open several), so the client comes per request
    client: (context) => context.services.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    onUnusedQuery: null,
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
