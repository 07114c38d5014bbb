import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printedSchema, schemaFile } from "../../src/graphql/print.ts";

describe("schema.graphql", () => {
  it("is what the Pothos schema prints (run `npm run schema:print` after changing the schema)", () => {
    expect(readFileSync(schemaFile, "utf8")).toBe(printedSchema());
  });
});
