import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { GraphQLSchema } from "graphql";
import { presentedKey } from "./auth/credentials.ts";
import type { Principal } from "./auth/principal.ts";
import type { Config } from "./config.ts";
import type { Services } from "./domain/services.ts";
import { AppError, asAppError, unauthorized } from "./errors.ts";
import type { Context } from "./graphql/context.ts";
import { graphiqlPage } from "./graphql/graphiql.ts";
import type { Yoga } from "./graphql/yoga.ts";
import { readBody, readJsonBody } from "./http/body.ts";
import { requestIdOf } from "./http/request-id.ts";
import { sendError, sendJson } from "./http/respond.ts";
import type { Logger } from "./logger.ts";
import { QueryParams } from "./rest/query-params.ts";
import { restMessage } from "./rest/field-names.ts";
import type { Router } from "./rest/router.ts";

export interface HttpDeps {
  config: Config;
  logger: Logger;
  services: Services;
  schema: GraphQLSchema;
  yoga: Yoga;
  router: Router;
}

export interface HttpServer {
  server: Server;
  /** Stops taking requests, lets the ones in flight finish (up to the timeout), then closes connections. */
  drain(timeoutMs: number): Promise<void>;
}

/** One process serves GraphQL at /graphql, the REST routes, and /healthz. */
export function createHttpServer(deps: HttpDeps): HttpServer {
  const { config, logger, services, schema, yoga, router } = deps;
  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | undefined;

  async function authenticate(req: IncomingMessage): Promise<Principal> {
    const key = presentedKey(req.headers);
    const principal = key ? await services.apiKeys.authenticate(key) : undefined;
    if (!principal) throw unauthorized(key ? "Invalid or revoked API key" : "Missing API key");
    return principal;
  }

  async function graphql(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    if (req.method === "GET" && !url.searchParams.has("query") && req.headers.accept?.includes("text/html")) {
      if (!config.graphiql) throw new AppError("NOT_FOUND", "GraphiQL is disabled on this server");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(graphiqlPage());
      return;
    }
    const context: Context = { principal: await authenticate(req), services, requestId };
    if (req.method === "POST") {
      // Yoga uses a body it is handed as is; reading it here is what enforces the size limit
      (req as IncomingMessage & { body?: Buffer }).body = await readBody(req, config.limits.maxBodyBytes);
    }
    await yoga(req, res, context);
  }

  async function rest(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    const method = req.method ?? "GET";
    const match = router.match(method, url.pathname);
    if (match.kind === "none") throw new AppError("NOT_FOUND", `No route for ${method} ${url.pathname}`);
    if (match.kind === "wrong-method") {
      throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${url.pathname}`, {
        headers: { allow: match.allowed.join(", ") },
      });
    }
    const context: Context = { principal: await authenticate(req), services, requestId };
    let body: Promise<unknown> | undefined;
    const response = await match.handler({
      req,
      params: match.params,
      query: new QueryParams(url.searchParams),
      context,
      schema,
      body: () => (body ??= readJsonBody(req, config.limits.maxBodyBytes)),
    });
    sendJson(res, response.status, response.body, response.headers);
  }

  function fail(res: ServerResponse, error: unknown, isGraphQL: boolean, requestId: string): void {
    const appError = asAppError(error);
    if (appError.code === "INTERNAL") logger.error({ err: appError.cause ?? error, requestId }, "request failed");
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (appError.code === "PAYLOAD_TOO_LARGE") res.setHeader("connection", "close"); // the rest of the body is unread
    if (!isGraphQL) return sendError(res, appError, restMessage(appError));
    const http = appError.extensions.http as { status: number; headers?: Record<string, string> };
    sendJson(res, http.status, { errors: [{ message: appError.message, extensions: { code: appError.code } }] }, http.headers);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = requestIdOf(req);
    res.setHeader("x-request-id", requestId);
    if (draining) res.setHeader("connection", "close");
    let path = "?";
    res.once("finish", () => {
      logger.info(
        { requestId, method: req.method, path, status: res.statusCode, ms: Math.round(performance.now() - started) },
        "request",
      );
    });
    let isGraphQL = false;
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname.length > 1 && url.pathname.endsWith("/")) url.pathname = url.pathname.slice(0, -1);
      path = url.pathname;
      if (path === "/healthz") return sendJson(res, 200, { status: "ok" });
      isGraphQL = path === "/graphql";
      if (isGraphQL) await graphql(req, res, url, requestId);
      else await rest(req, res, url, requestId);
    } catch (error) {
      fail(res, error, isGraphQL, requestId);
    }
  }

  const server = createServer((req, res) => {
    inFlight++;
    res.once("close", () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    void handle(req, res);
  });

  return {
    server,
    async drain(timeoutMs) {
      draining = true;
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
