import { DateTimeResolver, JSONObjectResolver, JSONResolver } from "graphql-scalars";
import { builder } from "./builder.ts";

builder.addScalarType("DateTime", DateTimeResolver, {
  description: "An ISO 8601 UTC timestamp with milliseconds, e.g. 2026-01-31T09:30:00.000Z.",
});
builder.addScalarType("JSON", JSONResolver, {});
builder.addScalarType("JSONObject", JSONObjectResolver, {});
