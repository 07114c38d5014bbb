import { GraphQLError } from "graphql";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { useDisableIntrospection } from "@graphql-yoga/plugin-disable-introspection";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { useArmor } from "./use-armor.ts";
import type { Context } from "./context.ts";
import { getSchema } from "./schema.ts";
import { useErrorCodes } from "./use-error-codes.ts";
import { useStrictParams } from "./use-strict-params.ts";
import { useMetrics, type OperationObserver } from "./use-metrics.ts";


export type Yoga = YogaServerInstance<Context, {}>;

export function createGraphQL(config: Config, logger: Logger, observe: OperationObserver): Yoga {
  return createYoga<Context>({
    schema: getSchema(),
    graphqlEndpoint: "/graphql",
    landingPage: false,
    logging: false,
    // the HTTP layer serves GraphiQL itself (before authentication): see graphiql.ts
    graphiql: false,
    // Yoga's default reflects any Origin; the HTTP layer applies CORS_ORIGINS to every route alike (http/cors.ts)
    cors: false,
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
    plugins: [
      useArmor(config.introspection),
      ...(config.introspection ? [] : [useDisableIntrospection()]),
      useStrictParams(),
      useErrorCodes(),
      useMetrics(observe),
    ],
  });
}
