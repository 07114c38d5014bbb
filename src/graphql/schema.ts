import type { GraphQLSchema } from "graphql";
import { builder } from "./builder.ts";
import "./scalars.ts";
import "./user.ts";
import "./api-key.ts";
import "./memory.ts";
import "./history.ts";
import "./batch.ts";
import "./search.ts";
import "./recall.ts";
import "./thread.ts";
import "./legacy.ts";
import "./event.ts";
import "./webhook.ts";

let schema: GraphQLSchema | undefined;

/** The schema is built once per process, on first use. */
export function getSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: true });
  return schema;
}
