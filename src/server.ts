import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { constants as zlibConstants } from "node:zlib";
import compression from "compression";
import type { GraphQLSchema } from "graphql";
import { presentedKey } from "./auth/credentials.ts";
import type { Principal } from "./auth/principal.ts";
import type { Config } from "./config.ts";
import type { Services } from "./domain/services.ts";
import { AppError, asAppError, invalid, unauthorized } from "./errors.ts";
import type { Context } from "./graphql/context.ts";
import { GRAPHIQL_ASSETS, graphiql } from "./graphql/graphiql.ts";
import type { Yoga } from "./graphql/yoga.ts";
import { bodyText, parseJsonBody, readBody } from "./http/body.ts";
import { clientAddress } from "./http/client-address.ts";
import { createCors } from "./http/cors.ts";
import { createApiDocs } from "./http/api-docs.ts";
import { serveDashboard } from "./http/dashboard.ts";
import { EventStreams, isEventStream, wantsEventStream } from "./http/event-stream.ts";
import { idempotent } from "./http/idempotent.ts";
import type { Metrics } from "./http/metrics.ts";
import { MIGRATION_GUIDE } from "./http/pages/migration.ts";
import type { RateLimit } from "./http/rate-limit.ts";
import { readiness } from "./http/readiness.ts";
import { requestIdOf } from "./http/request-id.ts";
import { bufferedReply, graphqlErrorReply, jsonReply, requireReadMethod, restErrorReply, send, sendJson, type Reply } from "./http/respond.ts";
import { createSecurityHeaders } from "./http/security-headers.ts";
import { IMMUTABLE, sendStatic } from "./http/static-file.ts";
import type { Logger } from "./logger.ts";
import { createMcpEndpoint } from "./mcp/endpoint.ts";
import { restMessage } from "./rest/field-names.ts";
import { QueryParams } from "./rest/query-params.ts";
import type { Deprecation, Router } from "./rest/router.ts";

export interface HttpDeps {
  config: Config;
  logger: Logger;
  services: Services;
  schema: GraphQLSchema;
  yoga: Yoga;
  router: Router;
  rateLimit: RateLimit;
  metrics: Metrics;
}

export interface HttpServer {
  server: Server;
  /** Stops taking requests, lets the ones in flight finish (up to the timeout), then closes connections. */
  drain(timeoutMs: number): Promise<void>;
}

const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/**
 * Text answers of 1 KB or more, gzip- or brotli-compressed as the client's Accept-Encoding allows (the
 * `compression` middleware: it only wraps res.write/end, so it needs nothing of Express but the signature).
 * Brotli at quality 4: close to gzip's speed, smaller output; the default 11 costs far more CPU than it saves.
 */
const compressing = compression({ threshold: 1024, brotli: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } } });
const compress = (req: IncomingMessage, res: ServerResponse, next: () => void) =>
  compressing(req as Parameters<typeof compressing>[0], res as Parameters<typeof compressing>[1], next);
/** Paths the server answers itself, read-only (the docs and the dashboard check their methods on their own). */
const SERVICE_PATHS = new Set(["/healthz", "/readyz", "/metrics", "/docs/migration"]);

const graphiqlDisabled = () => new AppError("NOT_FOUND", "GraphiQL is disabled on this server");
/** GraphiQL loads its code and styles from this server only; its editor sets inline styles and runs workers. */
const GRAPHIQL_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** One process serves GraphQL at /graphql, the REST routes, /healthz and the documentation pages. */
export function createHttpServer(deps: HttpDeps): HttpServer {
  const { config, logger, services, schema, yoga, router, rateLimit, metrics } = deps;
  const cors = createCors(config.corsOrigins);
  const apiDocs = createApiDocs(router, config);
  const mcp = createMcpEndpoint(deps);
  const securityHeaders = createSecurityHeaders(config.hstsMaxAgeSeconds);
  const eventStreams = new EventStreams();
  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | undefined;

  async function authenticate(req: IncomingMessage): Promise<Principal> {
    const key = presentedKey(req.headers);
    if (!key) throw unauthorized("Missing API key");
    const address = clientAddress(req, config.trustProxyHops);
    await rateLimit.admitAddress(address);
    const principal = await services.apiKeys.authenticate(key);
    if (principal) return principal;
    await rateLimit.authenticationFailed(address);
    throw unauthorized("Invalid or revoked API key");
  }

  /** The caller, once their key is good and within its rate limit; every later response carries the count. */
  async function admit(req: IncomingMessage, res: ServerResponse): Promise<Principal> {
    const principal = await authenticate(req);
    const { headers } = await rateLimit.consume(principal.keyId);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return principal;
  }

  /** Undefined when the answer was streamed (Server-Sent Events) rather than returned. */
  async function graphql(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<Reply | undefined> {
    if (req.method === "GET" && !url.searchParams.has("query") && req.headers.accept?.includes("text/html")) {
      if (!config.graphiql) throw graphiqlDisabled();
      const headers = { "content-type": "text/html; charset=utf-8", "content-security-policy": GRAPHIQL_POLICY };
      return { status: 200, headers, body: (await graphiql()).page };
    }
    const principal = await admit(req, res);
    const context: Context = { principal, services, requestId };
    // read here, not by Yoga, so that the size limit holds and an idempotent request's body can be hashed
    const body = req.method === "POST" ? await readBody(req, config.limits.maxBodyBytes) : Buffer.alloc(0);
    // decoded here, strictly (Yoga would decode bytes that are not UTF-8 leniently), and handed over as text
    const text = bodyText(body);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const init: RequestInit = { method: req.method, headers, ...(req.method === "POST" ? { body: text } : {}) };
    if (wantsEventStream(req.headers.accept)) {
      // a subscription's answer lasts as long as the client listens: it cannot be stored for a replay
      if (req.headers["idempotency-key"] !== undefined) {
        throw invalid("Idempotency-Key", "cannot be used with Accept: text/event-stream");
      }
      const response = await yoga.fetch(url, init, context);
      if (!isEventStream(response)) return bufferedReply(response);
      await eventStreams.send(res, response);
      return undefined;
    }
    return idempotent(services.idempotency, req, principal, body, async () => bufferedReply(await yoga.fetch(url, init, context)));
  }

  /** `onRoute` hears the pattern of the route the path matched, to count the request under. */
  async function rest(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    requestId: string,
    onRoute: (pattern: string) => void,
  ): Promise<Reply> {
    const method = req.method ?? "GET";
    const match = router.match(method, url.pathname);
    onRoute(match.kind === "none" ? "unmatched" : match.pattern);
    if (match.kind === "none") throw new AppError("NOT_FOUND", `No route for ${method} ${url.pathname}`);
    if (match.kind === "wrong-method") {
      throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${url.pathname}`, {
        headers: { allow: match.allowed.join(", ") },
      });
    }
    if (match.options.deprecation) announceDeprecation(res, match.options.deprecation);
    const principal = await admit(req, res);
    const context: Context = { principal, services, requestId };
    const raw = WITH_BODY.has(method) ? await readBody(req, config.limits.maxBodyBytes) : Buffer.alloc(0);
    let body: unknown;
    return idempotent(services.idempotency, req, principal, raw, async () => {
      try {
        const response = await match.handler({
          req,
          params: match.params,
          query: new QueryParams(url.searchParams),
          context,
          schema,
          body: async () => (body ??= parseJsonBody(req, raw)),
        });
        return jsonReply(response.status, response.body, response.headers);
      } catch (error) {
        // a client error is the request's answer (and replayed as such); anything else fails the request
        const appError = asAppError(error);
        if (appError.code === "INTERNAL") throw error;
        return restErrorReply(appError, match.options.camelCaseFields ? appError.message : restMessage(appError));
      }
    });
  }

  /** Deprecation headers on every response of a route on its way out; 410 after its sunset, if enforced. */
  function announceDeprecation(res: ServerResponse, deprecation: Deprecation): void {
    res.setHeader("deprecation", "true");
    res.setHeader("sunset", deprecation.sunset.toUTCString());
    res.setHeader("link", `<${deprecation.link}>; rel="deprecation"`);
    res.setHeader("x-api-warn", deprecation.warning);
    if (config.legacySunsetEnforce && Date.now() > deprecation.sunset.getTime()) {
      throw new AppError("GONE", `This route was removed on ${deprecation.sunset.toUTCString()}; see ${deprecation.link}`);
    }
  }

  async function serveGraphiQLAsset(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    requireReadMethod(req.method, path);
    if (!config.graphiql) throw graphiqlDisabled();
    const asset = (await graphiql()).assets.get(path.slice(GRAPHIQL_ASSETS.length));
    if (!asset) throw new AppError("NOT_FOUND", `No file at ${path}`);
    sendStatic(req, res, asset, { "cache-control": IMMUTABLE });
  }

  function fail(res: ServerResponse, error: unknown, isGraphQL: boolean, requestId: string): void {
    if (res.destroyed) {
      // the client went away (mid-body, say): nobody to answer, and nothing wrong with the server
      logger.debug({ err: error, requestId }, "client closed the connection");
      return;
    }
    const appError = asAppError(error);
    if (appError.code === "INTERNAL") logger.error({ err: appError.cause ?? error, requestId }, "request failed");
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (appError.code === "PAYLOAD_TOO_LARGE") res.setHeader("connection", "close"); // the rest of the body is unread
    send(res, isGraphQL ? graphqlErrorReply(appError) : restErrorReply(appError, restMessage(appError)));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = requestIdOf(req);
    res.setHeader("x-request-id", requestId);
    securityHeaders(res);
    if (draining) res.setHeader("connection", "close");
    let path = "?";
    // what metrics count the request under: a page's path or a REST route's pattern, never a raw REST path
    let route = "unmatched";
    res.once("finish", () => {
      const ms = performance.now() - started;
      logger.info({ requestId, method: req.method, path, status: res.statusCode, ms: Math.round(ms) }, "request");
      metrics.observeRequest(req.method, route, res.statusCode, ms / 1000);
    });
    let isGraphQL = false;
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname.length > 1 && url.pathname.endsWith("/")) url.pathname = url.pathname.slice(0, -1);
      path = url.pathname;
      if (cors(req, res)) {
        route = "preflight";
        return;
      }
      route = ["/dashboard", GRAPHIQL_ASSETS.slice(0, -1)].find((mount) => path === mount || path.startsWith(`${mount}/`)) ?? path;
      if (SERVICE_PATHS.has(path)) requireReadMethod(req.method, path);
      if (path === "/healthz") return sendJson(res, 200, { status: "ok" });
      if (path === "/readyz") {
        if (draining) return sendJson(res, 503, { status: "draining" });
        return send(res, await readiness(services, config.readinessTimeoutMs, logger));
      }
      if (path === "/metrics") return send(res, await metrics.scrape(req));
      if (serveDashboard(req, res, path)) return;
      if (path.startsWith(GRAPHIQL_ASSETS)) return await serveGraphiQLAsset(req, res, path);
      const docs = apiDocs(req, path);
      if (docs) return send(res, docs);
      if (path === "/docs/migration") {
        return send(res, { status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: MIGRATION_GUIDE });
      }
      if (path === "/mcp") return send(res, await mcp(req, () => admit(req, res), requestId));
      isGraphQL = path === "/graphql";
      const onRoute = (pattern: string) => (route = pattern);
      const reply = isGraphQL ? await graphql(req, res, url, requestId) : await rest(req, res, url, requestId, onRoute);
      if (reply) send(res, reply);
    } catch (error) {
      fail(res, error, isGraphQL, requestId);
    }
  }

  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections } = config.http;
  const serverOptions = {
    headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    // how often Node looks for requests past their time (30 s by default, which would stretch a 10 s limit)
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
  };
  const server = createServer(serverOptions, (req, res) => {
    inFlight++;
    res.once("close", () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    compress(req, res, () => void handle(req, res));
  });

  server.maxConnections = maxConnections;

  return {
    server,
    async drain(timeoutMs) {
      draining = true;
      eventStreams.endAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
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
