import { isPlainObject } from "../domain/json.ts";
import { invalid } from "../errors.ts";
import { snakeCase } from "./errors.ts";

/** `threadId` → `thread_id`, as a type: what `snakeCase` does at run time. */
type Snake<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${Snake<Tail>}`
  : S;

/** An object with its keys in the REST spelling. */
export type SnakeCased<T> = { [K in keyof T as K extends string ? Snake<K> : never]: T[K] };

/**
 * Fields of a model as a GraphQL object exposing them under the same names answers them (Pothos' `expose*`
 * checks those names and types against the model): DateTime as ISO 8601 text, the rest as they are.
 */
export type GraphQLView<Model, Field extends keyof Model> = { [K in Field]: Model[K] extends Date ? string : Model[K] };

/** The GraphQL fragment `name` that selects `fields` of `type`. */
export const fragment = (name: string, type: string, fields: readonly string[]): string =>
  `fragment ${name} on ${type} { ${fields.join(" ")} }`;

/**
 * The `fields` of `view` under their REST names, in that order, and nothing else (a webhook's event carries more
 * of the row than its REST shape shows).
 */
export function snakeCasedPick<View, Field extends keyof View & string>(
  view: View,
  fields: readonly Field[],
): SnakeCased<Pick<View, Field>> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) picked[restName(field)] = view[field];
  return picked as SnakeCased<Pick<View, Field>>;
}

// the names come from the code's own field lists, a few dozen: each is spelled once, not once per row of a page
const restNames = new Map<string, string>();

function restName(field: string): string {
  let name = restNames.get(field);
  if (name === undefined) restNames.set(field, (name = snakeCase(field)));
  return name;
}

/**
 * A PUT or PATCH body as sent, after checking that its `id`, which the API reads past (so that a record read can be
 * sent back as it is), names the record of the path: another one's body sent there is a mistake to report.
 */
export function ofPathId(body: unknown, id: string | undefined): unknown {
  if (isPlainObject(body) && body.id !== undefined && body.id !== id) {
    throw invalid("id", "must be the id in the path, or left out: a record's id cannot be changed");
  }
  return body;
}
