import { GraphQLError, GraphQLScalarType } from "graphql";
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from "graphql-scalars";
import { isStorableInstant, STORABLE_INSTANTS } from "../vectors/iso-instant.ts";
import { builder } from "./builder.ts";

/** An input instant the database can store: graphql-scalars' DateTime takes year 0000, which PostgreSQL refuses. */
function storable(date: Date): Date {
  if (!isStorableInstant(date.getTime())) throw new GraphQLError(`DateTime must be ${STORABLE_INSTANTS}: ${date.toISOString()} is not`);
  return date;
}

const dateTime = DateTimeResolver.toConfig();
const StorableDateTime = new GraphQLScalarType<Date, Date>({
  ...dateTime,
  parseValue: (value) => storable(dateTime.parseValue!(value) as Date),
  parseLiteral: (ast, variables) => storable(dateTime.parseLiteral!(ast, variables) as Date),
});

builder.addScalarType("DateTime", StorableDateTime, {
  description: "An ISO 8601 UTC timestamp with milliseconds, e.g. 2026-01-31T09:30:00.000Z.",
});
builder.addScalarType("JSON", JSONResolver, {});
builder.addScalarType("JSONObject", JSONObjectResolver, {});
