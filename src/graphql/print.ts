import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lexicographicSortSchema, printSchema } from "graphql";
import { getSchema } from "./schema.ts";

export const schemaFile = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "schema.graphql");

/** The SDL as committed in schema.graphql. */
export const printedSchema = (): string => `${printSchema(lexicographicSortSchema(getSchema()))}\n`;
