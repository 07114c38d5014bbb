import { GraphQLError } from "graphql";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { Logger } from "../logger.ts";
import type { Context } from "./context.ts";
import { getSchema } from "./schema.ts";
import { useErrorCodes } from "./use-error-codes.ts";


export type Yoga = YogaServerInstance<Context, {}>;

export function createGraphQL(logger: Logger): Yoga {
  return createYoga<Context>({
    schema: getSchema(),
    graphqlEndpoint: "/graphql",
    landingPage: false,
    logging: false,
    // the HTTP layer serves GraphiQL itself (before authentication): see graphiql.ts
    graphiql: false,
    maskedErrors: {
      maskError(error, message) {
        // errors meant for the client (ours, and graphql-js' own) pass; anything else is a bug to hide and log
        if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
          return error;
        }
        const original = error instanceof GraphQLError ? error.originalError : error;
        logger.error({ err: original }, "unexpected error in a GraphQL operation");
        return new GraphQLError(message === "Unexpected error." ? "Internal server error" : message, {
          extensions: { code: "INTERNAL", http: { status: 500 } },
        });
      },
    },
    plugins: [useErrorCodes()],
  });
}
