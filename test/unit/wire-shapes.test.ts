import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
} from "graphql";
import { describe, expect, it } from "vitest";
import { getSchema } from "../../src/graphql/schema.ts";
import { snakeCase } from "../../src/rest/errors.ts";
import { MEMORY_FRAGMENT, MEMORY_SCHEMA } from "../../src/rest/memory-wire.ts";
import type { JsonType, Schema } from "../../src/rest/openapi/types.ts";
import { THREAD_FRAGMENT, THREAD_SCHEMA } from "../../src/rest/thread-wire.ts";
import { DELIVERY_FRAGMENT, DELIVERY_SCHEMA, WEBHOOK_FRAGMENT, WEBHOOK_SCHEMA } from "../../src/rest/webhook-wire.ts";

/** The JSON type each GraphQL scalar answers with. */
const JSON_TYPES: Record<string, JsonType> = {
  ID: "string",
  String: "string",
  DateTime: "string",
  Int: "integer",
  Float: "number",
  Boolean: "boolean",
  JSONObject: "object",
};

/** What the REST schema of a GraphQL field must say: its JSON type, and whether it may be null. */
function expected(type: GraphQLOutputType): { type: JsonType; nullable: boolean } {
  const inner = isNonNullType(type) ? type.ofType : type;
  const named = getNamedType(inner);
  const json = isListType(inner) ? "array" : isEnumType(named) ? "string" : JSON_TYPES[named.name];
  if (!json) throw new Error(`no JSON type for ${named.name}`);
  return { type: json, nullable: !isNonNullType(type) };
}

// the REST shapes rename the GraphQL fields to snake_case: the fragment each route selects, field by field
// against the schema it documents, so that neither can drift from the GraphQL type
describe.each([
  { name: "memory", fragment: MEMORY_FRAGMENT, schema: MEMORY_SCHEMA, folded: { data: "content" } },
  { name: "thread", fragment: THREAD_FRAGMENT, schema: THREAD_SCHEMA, folded: {} },
  { name: "webhook", fragment: WEBHOOK_FRAGMENT, schema: WEBHOOK_SCHEMA, folded: {} },
  { name: "webhook delivery", fragment: DELIVERY_FRAGMENT, schema: DELIVERY_SCHEMA, folded: {} },
])("the REST $name", ({ fragment, schema, folded }) => {
  const definition = parse(fragment).definitions[0] as FragmentDefinitionNode;
  const graphqlType = getSchema().getType(definition.typeCondition.name.value);
  if (!isObjectType(graphqlType)) throw new Error(`${definition.typeCondition.name.value} is not an object type`);
  const fields = definition.selectionSet.selections.map((selection) => (selection.kind === "Field" ? selection.name.value : ""));

  it("documents every field it selects, under its snake_case name, typed and nullable as GraphQL answers it", () => {
    for (const field of fields) {
      const restName = (folded as Record<string, string>)[field] ?? snakeCase(field);
      const property: Schema | undefined = schema.properties?.[restName];
      expect(property, `${field} as ${restName}`).toBeDefined();
      const graphqlField = graphqlType.getFields()[field];
      expect(graphqlField, field).toBeDefined();
      // a field folded into another, a $ref or a oneOf say their type in their own way
      if (restName !== snakeCase(field) || !property!.type) continue;
      const types = [property!.type].flat();
      const { type, nullable } = expected(graphqlField!.type);
      expect(types, field).toContain(type);
      expect(types.includes("null"), `${field} may be null`).toBe(nullable);
    }
  });

  it("has no property that is none of the fields selected", () => {
    const restNames = fields.map((field) => (folded as Record<string, string>)[field] ?? snakeCase(field));
    const optional = Object.keys(schema.properties ?? {}).filter((name) => !schema.required?.includes(name));
    expect(Object.keys(schema.properties ?? {}).filter((name) => !restNames.includes(name))).toEqual(optional);
  });
});
