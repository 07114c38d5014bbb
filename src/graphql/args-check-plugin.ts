import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLFieldResolver } from "graphql";
import { checkPage } from "../domain/paging.ts";

/** What a field's `extensions.checkArgs` is: throws when the arguments cannot be taken. */
export type ArgsCheck = (args: Record<string, unknown>) => void;

/**
 * Checks a field's arguments as the field resolves (`extensions: { checkArgs }`), so that a refusal is the field's
 * error, at its path. A Prisma relation field's `query` runs while its parent resolves: an argument refused there
 * failed the parent instead (thread(id) { memories(limit: 0) } failed at ["thread"]). Kept here because no Pothos
 * plugin checks arguments at the field without a schema library of its own (plugin-validation wants zod or the
 * like per argument, for one range check).
 */
class ArgsCheckPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    const check = fieldConfig.extensions?.checkArgs as ArgsCheck | undefined;
    if (!check) return resolver;
    return (parent, args, context, info) => {
      check(args as Record<string, unknown>);
      return resolver(parent, args, context, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      argsCheck: ArgsCheckPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin("argsCheck", ArgsCheckPlugin);

export const ARGS_CHECK_PLUGIN = "argsCheck";

/** The check of a page's `limit` and `offset` (pageArgs). */
export const checkPageArgs =
  (defaultLimit: number): ArgsCheck =>
  ({ limit, offset }) =>
    void checkPage(limit as number | null | undefined, offset as number | null | undefined, defaultLimit);
