import type { ServerOptions } from "node:http";
import type { Config } from "../config.ts";

/** Node's time limits on a connection, from HTTP_* settings. */
export function serverOptions({ headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs }: Config["http"]): ServerOptions {
  return {
    headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    // how often Node looks for requests past their time (30 s by default, which would stretch a 10 s limit)
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
  };
}
