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
        const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
        logger.error({ err: original }, "unexpected error in a GraphQL operation");
        return new GraphQLError(message === "Unexpected error." ? "Internal server error" : message, {
          extensions: { code: "INTERNAL", http: { status: 500 } },
        });
      },
    },
    plugins: [useErrorCodes()],
  });
}
