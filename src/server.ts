import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Server as NetServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "./config.ts";
import type { Services } from "./domain/services.ts";
import type { GraphQLEndpoint } from "./graphql/endpoint.ts";
import { graphqlErrorReply } from "./graphql/error-reply.ts";
import { GRAPHIQL_ASSETS } from "./graphql/graphiql.ts";
import type { ApiDocs } from "./docs/api-docs.ts";
import { answerClientError } from "./http/client-error.ts";
import { compress } from "./http/compression.ts";
import { createCors } from "./http/cors.ts";
import { serveDashboard } from "./http/dashboard.ts";
import { answerFailure } from "./http/failure.ts";
import type { Metrics } from "./http/metrics.ts";
import { MIGRATION_GUIDE } from "./docs/migration.ts";
import { TEXT_PAGE_POLICY } from "./transport/page-policy.ts";
import { readiness } from "./http/readiness.ts";
import { requestIdOf } from "./http/request-id.ts";
import { logWhenAnswered, pageRoute } from "./http/request-log.ts";
import { createSecurityHeaders } from "./http/security-headers.ts";
import { serverOptions } from "./http/server-options.ts";
import type { Logger } from "./logger.ts";
import type { McpEndpoint } from "./mcp/endpoint.ts";
import type { RestDispatch } from "./rest/dispatch.ts";
import { restErrorReply } from "./rest/errors.ts";
import type { EventStreams } from "./transport/event-stream.ts";
import { requireUnencodedBody } from "./transport/body.ts";
import { requestUrl, type Exchange } from "./transport/exchange.ts";
import { jsonReply, requireReadMethod, send, type Reply } from "./transport/reply.ts";

export interface HttpDeps {
  config: Config;
  logger: Logger;
  services: Services;
  metrics: Metrics;
  /** /metrics, with METRICS_TOKEN checked. */
  scrape: (req: IncomingMessage) => Promise<Reply>;
  graphql: GraphQLEndpoint;
  rest: RestDispatch;
  mcp: McpEndpoint;
  apiDocs: ApiDocs;
  /** The GraphQL endpoint's subscriptions, ended when the server drains. */
  eventStreams: EventStreams;
  /** A server already listening (`listenWhileStarting`'s) whose requests this one takes over; else a new one. */
  server?: Server | undefined;
}

export interface HttpServer {
  server: Server;
  /**
   * Stops taking connections, answers what arrives on the open ones for `idleGraceMs` (with Connection: close),
   * lets the requests in flight finish (up to the timeout), then closes connections.
   */
  drain(timeoutMs: number, idleGraceMs: number): Promise<void>;
}

/** Paths the server answers itself, read-only (the docs and the dashboard check their methods on their own). */
const SERVICE_PATHS = new Set(["/healthz", "/readyz", "/metrics", "/docs/migration"]);

const openConnections = (server: Server): Promise<number> =>
  new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));

/** One process serves GraphQL at /graphql, the REST routes, /mcp, /healthz and the documentation pages. */
export function createHttpServer({ config, logger, services, metrics, scrape, graphql, rest, mcp, apiDocs, eventStreams, server: listening }: HttpDeps): HttpServer {
  const cors = createCors(config.corsOrigins);
  const securityHeaders = createSecurityHeaders(config.hstsMaxAgeSeconds);
  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | undefined;

  /** The path table. Undefined: the endpoint has sent its answer itself (a file, an event stream). */
  async function answer(exchange: Exchange): Promise<Reply | undefined> {
    const { req, res, url } = exchange;
    const path = url.pathname;
    if (SERVICE_PATHS.has(path)) requireReadMethod(req.method, path);
    if (path === "/healthz") return jsonReply(200, { status: "ok" });
    if (path === "/readyz") return draining ? jsonReply(503, { status: "draining" }) : readiness(services, config.readinessTimeoutMs, logger);
    if (path === "/metrics") return scrape(req);
    if (path === "/docs/migration") {
      return { status: 200, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": TEXT_PAGE_POLICY }, body: MIGRATION_GUIDE };
    }
    if (serveDashboard(req, res, path)) return undefined;
    if (path.startsWith(GRAPHIQL_ASSETS)) return graphql.asset(exchange);
    if (path === "/mcp") return mcp(exchange);
    if (path === "/graphql") return graphql.operation(exchange);
    if (await apiDocs(req, res, path)) return undefined;
    return rest(exchange);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = requestIdOf(req);
    const exchange: Exchange = { req, res, url: new URL("http://localhost/"), requestId, route: "unmatched" };
    logWhenAnswered(exchange, logger, metrics);
    res.setHeader("x-request-id", requestId);
    securityHeaders(res);
    if (draining) res.setHeader("connection", "close");
    try {
      exchange.url = requestUrl(req);
      if (cors(req, res)) return void (exchange.route = "preflight");
      exchange.route = pageRoute(exchange.url.pathname);
      requireUnencodedBody(req);
      const reply = await answer(exchange);
      if (reply) send(res, reply);
    } catch (error) {
      answerFailure(res, error, exchange.url.pathname === "/graphql" ? graphqlErrorReply : restErrorReply, logger, requestId);
    }
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    inFlight++;
    res.once("close", () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    compress(req, res, () => void handle(req, res));
  }

  const server = listening ?? createServer(serverOptions(config.http));
  server.removeAllListeners("request");
  server.on("request", onRequest);
  server.removeAllListeners("clientError");
  server.on("clientError", answerClientError);
  server.maxConnections = config.http.maxConnections;

  return {
    server,
    async drain(timeoutMs, idleGraceMs) {
      draining = true;
      eventStreams.endAll();
      // net.Server's close: it stops listening and leaves the open connections be, where http.Server's (Node.js 19+)
      // closes the idle keep-alive ones at once, and a request a client (a proxy's pool) sent on one as the signal
      // came met a reset. They are closed after the grace; what arrives meanwhile is answered, with Connection: close.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      if (idleGraceMs > 0 && (await openConnections(server)) > 0) await sleep(Math.min(idleGraceMs, timeoutMs));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
