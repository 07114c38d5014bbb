import type { ServerResponse } from "node:http";
import type { GraphQLSchema } from "graphql";
import type { Config } from "../config.ts";
import type { IdempotencyService } from "../domain/idempotency.ts";
import { AppError, asAppError, logUnavailable } from "../errors.ts";
import type { ContextFor } from "../graphql/context.ts";
import { parseJsonBody, readBody } from "../transport/body.ts";
import type { Exchange } from "../transport/exchange.ts";
import { idempotent } from "../transport/idempotent.ts";
import { sendNdjson } from "../transport/ndjson.ts";
import type { Logger } from "../logger.ts";
import { closeIfBodyUnread, jsonReply, type Reply } from "../transport/reply.ts";
import { restError, restErrorReply } from "./errors.ts";
import { deprecationHeaders } from "./legacy-deprecation.ts";
import { QueryParams } from "./query-params.ts";
import type { Deprecation, RestRequest, RestResponse, Router } from "./router.ts";

export interface RestDispatchDeps {
  config: Config;
  idempotency: IdempotencyService;
  schema: GraphQLSchema;
  router: Router;
  contextFor: ContextFor;
  logger: Logger;
}

const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/**
 * Answers a request with the REST route its method and path match (undefined: a streaming route sent its
 * answer itself); sets the exchange's route to its pattern.
 */
export type RestDispatch = (exchange: Exchange) => Promise<Reply | undefined>;

export function createRestDispatch({ config, logger, idempotency, schema, router, contextFor }: RestDispatchDeps): RestDispatch {
  /** Deprecation headers on every response of a route on its way out; 410 after its sunset, if enforced. */
  function announceDeprecation(res: ServerResponse, deprecation: Deprecation): void {
    for (const [name, value] of Object.entries(deprecationHeaders(deprecation))) res.setHeader(name, value);
    if (config.legacySunsetEnforce && router.pastSunset(deprecation)) {
      throw new AppError("GONE", `This route was removed on ${deprecation.sunset.toUTCString()}; see ${deprecation.link}`);
    }
  }

  /**
   * A streaming route's answer: its lines sent as they come (undefined: sent), or a whole reply. A failure
   * after the first line ends the stream with an error line, and is logged when unexpected.
   */
  async function streamed({ res, requestId }: Exchange, running: Promise<RestResponse>): Promise<Reply | undefined> {
    try {
      const response = await running;
      if (!response.lines) return jsonReply(response.status, response.body, response.headers);
      await sendNdjson(res, response.headers ?? {}, response.lines, (error) => ({ kind: "error", error: restError(asAppError(error)) }));
      return undefined;
    } catch (error) {
      const appError = asAppError(error);
      if (!res.headersSent) {
        if (appError.code === "INTERNAL") throw error;
        closeIfBodyUnread(res);
        logUnavailable(logger, appError, { requestId });
        return restErrorReply(appError);
      }
      if (appError.code === "INTERNAL") logger.error({ err: appError.cause ?? error, requestId }, "stream failed");
      return undefined;
    }
  }

  return async (exchange) => {
    const { req, res, url } = exchange;
    const method = req.method ?? "GET";
    const match = router.match(method, url.pathname);
    exchange.route = match.kind === "none" ? "unmatched" : match.pattern;
    if (match.kind === "none") throw new AppError("NOT_FOUND", `No route for ${method} ${url.pathname}`);
    if (match.kind === "wrong-method") {
      if (match.deprecation) announceDeprecation(res, match.deprecation);
      throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${url.pathname}`, {
        headers: { allow: match.allowed.join(", ") },
      });
    }
    if (match.options.deprecation) announceDeprecation(res, match.options.deprecation);
    const context = await contextFor(exchange);
    const request = (body: RestRequest["body"]): RestRequest => ({
      req,
      params: match.params,
      query: new QueryParams(url.searchParams),
      context,
      schema,
      body,
    });
    if (match.options.streaming) {
      const noBody = () => Promise.reject(new Error("a streaming route reads its own body"));
      return streamed(exchange, match.handler(request(noBody)));
    }
    const raw = WITH_BODY.has(method) ? await readBody(req, config.limits.maxBodyBytes) : Buffer.alloc(0);
    let body: unknown;
    const run = async (): Promise<Reply> => {
      try {
        const response = await match.handler(request(async (options) => (body ??= parseJsonBody(req, raw, options))));
        return jsonReply(response.status, response.body, response.headers);
      } catch (error) {
        // a client error is the request's answer (and replayed as such); anything else fails the request
        const appError = asAppError(error);
        if (appError.code === "INTERNAL") throw error;
        logUnavailable(logger, appError, { requestId: exchange.requestId });
        return restErrorReply(appError, { camelCaseFields: match.options.camelCaseFields });
      }
    };
    return match.options.reads ? run() : idempotent(idempotency, req, context.principal, raw, "nothing", run);
  };
}
