import { EXAMPLE_OPERATIONS } from "./examples.ts";

let page: Promise<string> | undefined;

/**
 * GraphiQL, pointed at /graphql, with example operations and a header template for the API key. The page inlines
 * GraphiQL's scripts and styles (about 9 MB), so it works offline; the package is loaded on the first request, not
 * at start-up, since parsing it takes a quarter of a second.
 */
export function graphiqlPage(): Promise<string> {
  page ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) =>
    renderGraphiQL({
      title: "Memory service",
      endpoint: "/graphql",
      defaultQuery: EXAMPLE_OPERATIONS,
      headers: JSON.stringify({ Authorization: "Bearer <your API key>" }, null, 2),
      shouldPersistHeaders: false,
    }),
  );
  return page;
}
