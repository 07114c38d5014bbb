import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { ConfigError, type Config } from "../config.ts";
import { AppError } from "../errors.ts";
import { graphqlErrorReply } from "../graphql/error-reply.ts";
import { restErrorReply } from "../rest/errors.ts";
import { deprecationHeaders, LEGACY_COLLECTION, LEGACY_DEPRECATION } from "../rest/legacy-deprecation.ts";
import { jsonReply, send } from "../transport/reply.ts";
import { requestIdOf } from "./request-id.ts";
import { createSecurityHeaders } from "./security-headers.ts";
import { serverOptions } from "./server-options.ts";

/** `/readyz`'s status while the service starts (503). */
export const STARTING_STATUS = "starting";

const RETRY_AFTER_SECONDS = "1";

/**
 * The service's HTTP server, listening on HOST:PORT before the rest of the service has loaded its code and opened
 * its database: a supervisor sees the process alive at once (`/healthz` 200), `/readyz` answers 503
 * `{"status":"starting"}` and every other request 503 with Retry-After (in GraphQL's form at /graphql) until `createHttpServer` takes the server's
 * requests over. This module imports nothing heavy, so that `npm start` listens as soon as Node.js can.
 */
export async function listenWhileStarting(config: Config): Promise<Server> {
  const securityHeaders = createSecurityHeaders(config.hstsMaxAgeSeconds);
  const server = createServer(serverOptions(config.http), (req, res) => answerWhileStarting(req, res, securityHeaders));
  server.maxConnections = config.http.maxConnections;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, config));
    server.once("error", failed);
    server.listen(config.port, config.host, () => {
      server.off("error", failed);
      resolve();
    });
  });
  return server;
}

/** Why the server cannot listen, naming the setting to change when one is to blame. */
function listenError(error: NodeJS.ErrnoException, { host, port }: Config): Error {
  const where = `Cannot listen on ${host}:${port}`;
  switch (error.code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new ConfigError(`${where}: HOST ${host} is neither an address of this machine nor a name that resolves`);
    case "EADDRNOTAVAIL":
      return new ConfigError(`${where}: HOST ${host} is not an address of this machine`);
    case "EADDRINUSE":
      return new ConfigError(`${where}: PORT ${port} is in use by another process`);
    case "EACCES":
      return new ConfigError(`${where}: PORT ${port} needs privileges this process lacks`);
    default:
      return error;
  }
}

function answerWhileStarting(req: IncomingMessage, res: ServerResponse, securityHeaders: (res: ServerResponse) => void): void {
  res.setHeader("x-request-id", requestIdOf(req));
  securityHeaders(res);
  const path = (req.url ?? "/").split("?", 1)[0];
  const readMethod = req.method === "GET" || req.method === "HEAD";
  // the body is drained so that a keep-alive connection can carry the next request
  req.resume();
  if (readMethod && path === "/healthz") return send(res, jsonReply(200, { status: "ok" }));
  if (readMethod && path === "/readyz") return send(res, jsonReply(503, { status: STARTING_STATUS }));
  // the legacy collection's answers say it is deprecated, this one too
  const deprecated = path === LEGACY_COLLECTION ? deprecationHeaders(LEGACY_DEPRECATION) : {};
  const starting = new AppError("SERVICE_UNAVAILABLE", "The service is starting: try again shortly", {
    headers: { "retry-after": RETRY_AFTER_SECONDS, ...deprecated },
  });
  send(res, (path === "/graphql" ? graphqlErrorReply : restErrorReply)(starting));
}
