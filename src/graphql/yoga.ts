import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { useDisableIntrospection } from "@graphql-yoga/plugin-disable-introspection";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { useArmor } from "./use-armor.ts";
import { useCostLimit } from "./use-cost-limit.ts";
import { useMutationsCounted } from "./use-mutations-counted.ts";
import type { Context } from "./context.ts";
import { getSchema } from "./schema.ts";
import { maskError, useErrorCodes } from "./errors.ts";
import { useStrictParams } from "./use-strict-params.ts";
import { useMetrics, type OperationObserver } from "./use-metrics.ts";
import { useSharedSubscriptions } from "./use-shared-subscriptions.ts";
import { useSubscriptionRootCheck } from "./use-subscription-root-check.ts";
import { useOverlapBudgetMessage } from "./use-overlap-budget-message.ts";


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
    maskedErrors: { maskError: maskError(logger) },
    // the endpoint reads the body itself, within MAX_BODY_BYTES, before Yoga sees it (endpoint.ts): Yoga's own
    // limit would pipe that text through a counting stream again, a few per cent of a small request's CPU
    maxRequestBodySize: false,
    plugins: [
      useArmor(config.introspection),
      useCostLimit(),
      useMutationsCounted(),
      ...(config.introspection ? [] : [useDisableIntrospection()]),
      useStrictParams(),
      useSubscriptionRootCheck(),
      useOverlapBudgetMessage(),
      useErrorCodes(),
      useMetrics(observe),
      useSharedSubscriptions(),
    ],
  });
}
