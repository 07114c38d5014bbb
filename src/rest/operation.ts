import {
  coerceInputValue,
  execute,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLError,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { AppError, asAppError, invalid } from "../errors.ts";
import type { Context } from "../graphql/context.ts";
import { OUT_OF_INT_RANGE } from "../graphql/int-range.ts";
import { STORABLE_INSTANTS } from "../vectors/iso-instant.ts";

/**
 * A GraphQL operation the REST adapter runs: parsed once, validated once against the schema, executed
 * directly (the rules live in the resolvers; REST only maps the wire format).
 */
export class Operation<TData> {
  readonly document: DocumentNode;
  private readonly definition: OperationDefinitionNode;
  private validatedFor: GraphQLSchema | undefined;

  constructor(source: string) {
    this.document = parse(source);
    const definition = this.document.definitions.find((d) => d.kind === "OperationDefinition");
    if (!definition) throw new Error("no operation in REST operation source");
    this.definition = definition;
  }

  run(schema: GraphQLSchema, context: Context, variables: Record<string, unknown> = {}): Promise<TData> {
    this.ensureValid(schema);
    // coerced here only to name the offending field: execution coerces them again, which would fail for an
    // enum whose values are not its names (EventType's MEMORY_CREATED is memory.created)
    this.coerce(schema, variables);
    // a variable not given, or null, is left out, so that its default applies
    const given = Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined && value !== null));
    return this.runCoerced(schema, context, given);
  }

  /** `run` for variables the caller has coerced already (with `coerceValue`, to report on each part alone). */
  async runCoerced(schema: GraphQLSchema, context: Context, variableValues: Record<string, unknown>): Promise<TData> {
    this.ensureValid(schema);
    const result = await execute({ schema, document: this.document, contextValue: context, variableValues });
    if (result.errors?.length) throw appErrorOf(result.errors[0]!);
    return result.data as TData;
  }

  private ensureValid(schema: GraphQLSchema): void {
    if (this.validatedFor === schema) return;
    const errors = validate(schema, this.document);
    if (errors.length) throw new Error(`REST operation does not match the schema: ${errors[0]!.message}`);
    this.validatedFor = schema;
  }

  /** Coerces variables as GraphQL would, but names the offending field so REST can report it. */
  private coerce(schema: GraphQLSchema, variables: Record<string, unknown>): Record<string, unknown> {
    const coerced: Record<string, unknown> = {};
    for (const definition of this.definition.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      const value = variables[name];
      const type = typeFromAST(schema, definition.type) as GraphQLInputType;
      if (value === undefined || value === null) {
        if (isNonNullType(type) && !definition.defaultValue) throw invalid(name, "is required");
        continue;
      }
      // `input` and `filter` carry the body and the query filters: their fields are what callers know
      coerced[name] = coerceValue(value, type, name === "input" || name === "filter" ? [] : [name]);
    }
    return coerced;
  }
}

/**
 * A JSON value as the GraphQL input type takes it (a REST body, or one item of it); a mismatch is a
 * VALIDATION_ERROR naming the field, after `prefix`.
 */
export function coerceValue(value: unknown, type: GraphQLInputType, prefix: readonly (string | number)[] = []): unknown {
  const fail = (path: readonly (string | number)[], given?: unknown, error?: GraphQLError): never => {
    // graphql-js reports a missing required field at the object that lacks it
    const missing = error && /^Field "(\w+)" of required type .* was not provided/.exec(error.message);
    if (missing) throw invalid(formatPath([...prefix, ...path, missing[1]!]), "is required");
    const expected = typeAt(type, path);
    // a whole number GraphQL's Int cannot hold is refused for its size, not its kind: in the field's own bounds
    // when it has narrower ones
    const tooLarge = Number.isInteger(given) && getNamedType(expected).name === "Int";
    const bounds = tooLarge ? (inputFieldAt(type, path)?.extensions[OUT_OF_INT_RANGE] as string | undefined) : undefined;
    throw invalid(formatPath([...prefix, ...path]), bounds ?? (tooLarge ? `must be ${INT_RANGE}` : `must be ${describe(expected)}`));
  };
  requireArraysForLists(value, type, [], fail, (path, known) =>
    invalid(formatPath([...prefix, ...path]), `is not a field here (known: ${known.join(", ")})`),
  );
  return coerceInputValue(value, type, fail);
}

/**
 * GraphQL coerces a lone value into a list of one; in a JSON body that is a mistake (`"tags": "a,b"`), so the
 * REST adapter asks for real arrays wherever the schema has a list. A field the input type lacks is named
 * here too, where the type is at hand (GraphQL would only say so in a message).
 */
function requireArraysForLists(
  value: unknown,
  type: GraphQLInputType,
  path: (string | number)[],
  fail: (path: readonly (string | number)[]) => never,
  stray: (path: readonly (string | number)[], known: string[]) => Error,
): void {
  if (value === null || value === undefined) return;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) fail(path);
    (value as unknown[]).forEach((item, i) => requireArraysForLists(item, inner.ofType, [...path, i], fail, stray));
  } else if (isInputObjectType(inner) && typeof value === "object" && !Array.isArray(value)) {
    const fields = inner.getFields();
    const unknown = Object.keys(value).find((key) => !Object.hasOwn(fields, key));
    if (unknown) throw stray([...path, unknown], Object.keys(fields));
    for (const [key, field] of Object.entries(fields)) {
      requireArraysForLists((value as Record<string, unknown>)[key], field.type, [...path, key], fail, stray);
    }
  }
}

function formatPath(path: readonly (string | number)[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? key : `.${key}`)).join("");
}

/** The input object field `path` ends at, if it ends at one. */
function inputFieldAt(type: GraphQLInputType, path: readonly (string | number)[]): GraphQLInputField | undefined {
  const key = path.at(-1);
  const parent = typeAt(type, path.slice(0, -1));
  const inner = isNonNullType(parent) ? parent.ofType : parent;
  return typeof key === "string" && isInputObjectType(inner) ? inner.getFields()[key] : undefined;
}

function typeAt(type: GraphQLInputType, path: readonly (string | number)[]): GraphQLInputType {
  let current = type;
  for (const key of path) {
    const inner = isNonNullType(current) ? current.ofType : current;
    if (typeof key === "number" && isListType(inner)) current = inner.ofType;
    else if (typeof key === "string" && isInputObjectType(inner)) current = inner.getFields()[key]?.type ?? inner;
  }
  return current;
}

const INT_RANGE = "a whole number from -2147483648 to 2147483647";

const scalarNames: Record<string, string> = {
  String: "a string",
  ID: "a string",
  Int: "a whole number",
  Float: "a number",
  Boolean: "true or false",
  JSON: "a JSON value",
  JSONObject: "a JSON object",
  // GraphQL's DateTime wants a time and a zone: a date alone, or a time without a zone, is refused
  DateTime: `an ISO 8601 timestamp with a time and a zone (2026-01-31T09:00:00Z), ${STORABLE_INSTANTS}`,
};

function describe(type: GraphQLInputType): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return `a list of ${describe(inner.ofType).replace(/^an? /, "")}s`;
  const named = getNamedType(inner);
  if (isEnumType(named)) return `one of ${named.getValues().map((value) => value.name).join(", ")}`;
  return isInputObjectType(named) ? "an object" : (scalarNames[named.name] ?? `a ${named.name}`);
}

/** The AppError a resolver threw (a database out of reach is one, 503); anything else is unexpected and becomes INTERNAL. */
const appErrorOf = (error: GraphQLError): AppError => asAppError(error.originalError ?? error);
