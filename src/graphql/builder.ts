import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import type { JsonObject, JsonValue } from "../domain/json.ts";
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

export type SchemaTypes = PothosSchemaTypes.ExtendDefaultTypes<BuilderTypes>;

export const builder = new SchemaBuilder<BuilderTypes>({
  plugins: [ARGS_CHECK_PLUGIN, PrismaPlugin, RelayPlugin],
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
