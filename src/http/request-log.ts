import { GRAPHIQL_ASSETS } from "../graphql/graphiql.ts";
import { redactKeys } from "../domain/key-secret.ts";
import type { Logger } from "../logger.ts";
import type { Exchange } from "../transport/exchange.ts";
import type { Metrics } from "./metrics.ts";

/** Logs the exchange (never a key, even one a client put in the path) and counts it in the metrics once its answer is sent, under its route as it is by then. */
export function logWhenAnswered(exchange: Exchange, logger: Logger, metrics: Metrics): void {
  const started = performance.now();
  const { req, res, requestId } = exchange;
  res.once("finish", () => {
    const ms = performance.now() - started;
    logger.info({ requestId, method: req.method, path: redactKeys(exchange.url.pathname), status: res.statusCode, ms: Math.round(ms) }, "request");
    metrics.observeRequest(req.method, exchange.route, res.statusCode, ms / 1000);
  });
}

/** Paths below which metrics count every request as one. */
const MOUNTS = ["/dashboard", GRAPHIQL_ASSETS.slice(0, -1)];

/** What metrics count a request for `path` under, until a REST route names its pattern. */
export const pageRoute = (path: string): string =>
  MOUNTS.find((mount) => path === mount || path.startsWith(`${mount}/`)) ?? path;
