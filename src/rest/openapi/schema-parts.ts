import type { Schema } from "./types.ts";

export const timestamp = (description: string): Schema => ({
  type: "string",
  format: "date-time",
  description: `${description} ISO 8601 UTC with milliseconds.`,
  examples: ["2026-01-31T09:30:00.000Z"],
});

export const uuid = (description: string): Schema => ({ type: "string", format: "uuid", description });

/** The keys of T that it may lack. */
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

/**
 * An answer's object schema from one schema per field, typed by the answer's own type: a field the REST shape
 * gains or loses fails to compile until it is documented. All but its `optional` fields are always present.
 */
export function objectSchema<Shape>(
  description: string,
  properties: { [K in keyof Shape]-?: Schema },
  optional: readonly OptionalKeys<Shape>[] = [],
): Schema {
  return {
    type: "object",
    description,
    required: Object.keys(properties).filter((key) => !(optional as readonly string[]).includes(key)),
    properties: properties as Record<string, Schema>,
    additionalProperties: false,
  };
}
