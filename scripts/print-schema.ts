// Writes schema.graphql from the Pothos schema. A test fails when the committed file is stale.
import { writeFileSync } from "node:fs";
import { printedSchema, schemaFile } from "../src/graphql/print.ts";

writeFileSync(schemaFile, printedSchema());
console.log(`wrote ${schemaFile}`);
