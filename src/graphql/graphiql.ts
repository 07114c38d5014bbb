import { renderGraphiQL } from "graphql-yoga";
import { EXAMPLE_OPERATIONS } from "./examples.ts";

let page: string | undefined;

/** GraphiQL, pointed at /graphql, with example operations and a header template for the API key. */
export function graphiqlPage(): string {
  page ??= renderGraphiQL({
    title: "Memory service",
    endpoint: "/graphql",
    defaultQuery: EXAMPLE_OPERATIONS,
    headers: JSON.stringify({ Authorization: "Bearer <your API key>" }, null, 2),
    shouldPersistHeaders: false,
  });
  return page;
}
