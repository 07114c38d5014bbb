import { SCRIPTED_PAGE_POLICY } from "../transport/page-policy.ts";
import type { Config } from "../config.ts";
import type { IdempotencyService } from "../domain/idempotency.ts";
import { AppError, invalid } from "../errors.ts";
import { bodyText, checkJsonDepth, readBody } from "../transport/body.ts";
import { discardEventStream, EventStreams, isEventStream, wantsEventStream } from "../transport/event-stream.ts";
import type { Exchange } from "../transport/exchange.ts";
import { idempotent } from "../transport/idempotent.ts";
import { bufferedReply, requireReadMethod, type Reply } from "../transport/reply.ts";
import { IMMUTABLE, sendStatic } from "../transport/static-file.ts";
import type { ContextFor } from "./context.ts";
import { GRAPHIQL_ASSETS, graphiql } from "./graphiql.ts";
import { operationKind } from "./operation-kind.ts";
import type { Yoga } from "./yoga.ts";

export interface GraphQLEndpointDeps {
  config: Config;
  idempotency: IdempotencyService;
  yoga: Yoga;
  contextFor: ContextFor;
  /** Subscriptions' streams, which the server ends when it drains. */
  eventStreams: EventStreams;
}

export interface GraphQLEndpoint {
  /** /graphql: GraphiQL to a browser, else an operation; undefined when the answer was streamed (SSE). */
  operation(exchange: Exchange): Promise<Reply | undefined>;
  /** GraphiQL's scripts and styles, below GRAPHIQL_ASSETS. */
  asset(exchange: Exchange): Promise<undefined>;
}

/**
 * Yoga answers an operation whose every possible answer the client's Accept refuses (a subscription to a client
 * accepting only application/json) with an empty 406, and a request header (Accept) among its response headers.
 */
function requireAcceptable(response: Response): Response {
  if (response.status !== 406) return response;
  throw new AppError(
    "NOT_ACCEPTABLE",
    "The client accepts none of this operation's answers (Accept): a query or mutation is answered as application/json " +
      "or application/graphql-response+json, a subscription as text/event-stream",
  );
}

const graphiqlDisabled = () => new AppError("NOT_FOUND", "GraphiQL is disabled on this server");

export function createGraphQLEndpoint({ config, idempotency, yoga, contextFor, eventStreams }: GraphQLEndpointDeps): GraphQLEndpoint {
  return {
    async operation(exchange) {
      const { req, res, url } = exchange;
      // GraphiQL is served before authentication: the page holds nothing, and the key is typed into it
      if (req.method === "GET" && !url.searchParams.has("query") && req.headers.accept?.includes("text/html")) {
        if (!config.graphiql) throw graphiqlDisabled();
        const headers = { "content-type": "text/html; charset=utf-8", "content-security-policy": SCRIPTED_PAGE_POLICY };
        return { status: 200, headers, body: (await graphiql()).page };
      }
      const context = await contextFor(exchange);
      // read here, not by Yoga, so that the size limit holds and an idempotent request's body can be hashed
      const body = req.method === "POST" ? await readBody(req, config.limits.maxBodyBytes) : Buffer.alloc(0);
      // decoded here, strictly (Yoga would decode bytes that are not UTF-8 leniently), and handed over as text
      const text = bodyText(body);
      checkJsonDepth(text, "The request body");
      checkJsonDepth(url.searchParams.get("variables") ?? "", "variables");
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const init: RequestInit = { method: req.method, headers, ...(req.method === "POST" ? { body: text } : {}) };
      // an Idempotency-Key keeps a mutation's answer; a query is answered afresh (a replay would show memories
      // deleted or expired since), and a subscription's answer lasts as long as the client listens: it cannot be stored
      const keyed = req.headers["idempotency-key"] !== undefined;
      if (!keyed || operationKind(text) === "query") {
        // Yoga answers a subscription with Server-Sent Events when the client accepts them, by Accept:
        // text/event-stream or by accepting anything (*/*, or no Accept at all)
        const response = await yoga.fetch(url, init, context);
        if (!isEventStream(response)) return bufferedReply(requireAcceptable(response));
        await eventStreams.send(res, response, context.principal.userId);
        return undefined;
      }
      if (wantsEventStream(req.headers.accept)) throw invalid("Idempotency-Key", "cannot be used with Accept: text/event-stream");
      return idempotent(idempotency, req, context.principal, body, "written", async () => {
        const response = await yoga.fetch(url, init, context);
        if (!isEventStream(response)) return bufferedReply(requireAcceptable(response));
        await discardEventStream(response);
        throw invalid("Idempotency-Key", "cannot be used with a subscription");
      });
    },

    async asset({ req, res, url }) {
      const path = url.pathname;
      requireReadMethod(req.method, path);
      if (!config.graphiql) throw graphiqlDisabled();
      const asset = (await graphiql()).assets.get(path.slice(GRAPHIQL_ASSETS.length));
      if (!asset) throw new AppError("NOT_FOUND", `No file at ${path}`);
      sendStatic(req, res, asset, { "cache-control": IMMUTABLE });
      return undefined;
    },
  };
}
