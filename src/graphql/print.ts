import { lexicographicSortSchema, printSchema } from "graphql";
import { projectPath } from "../project-root.ts";
import { getSchema } from "./schema.ts";

export const schemaFile = projectPath("schema.graphql");

/** The SDL as committed in schema.graphql. */
export const printedSchema = (): string => `${printSchema(lexicographicSortSchema(getSchema()))}\n`;
