import type { IncomingMessage, ServerResponse } from "node:http";

const ALLOW_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
// Mcp-Protocol-Version: what MCP clients send on /mcp once they have agreed on a version
const ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key, Mcp-Protocol-Version, X-Request-Id, X-Service-Api-Key";
/** The response headers a frontend needs to read: browsers hide all but a handful unless told. */
const EXPOSE_HEADERS = [
  "X-Request-Id",
  "Retry-After",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Idempotent-Replayed",
  "Deprecation",
  "Sunset",
  "Link",
  "X-API-Warn",
].join(", ");
/** Chromium caches a preflight for at most two hours, whatever it is told. */
const MAX_AGE_SECONDS = "7200";

/**
 * Applies CORS_ORIGINS to a request: sets the CORS headers when its Origin is allowed, and answers a preflight
 * itself. Returns true when it has answered.
 */
type Cors = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * One policy for every route, /graphql and /mcp. Preflights are answered here, 204, before authentication and rate
 * limiting: browsers send them without the key. A disallowed Origin gets no CORS headers, so the browser keeps
 * the answer from the page; the request itself is served as a non-browser client's would be. With an empty list
 * no response carries CORS headers, and browsers allow only same-origin pages.
 */
export function createCors(origins: readonly string[]): Cors {
  const anyOrigin = origins.includes("*");
  const allowed = new Set(origins);
  // the answer depends on Origin only when some origins are allowed and others not: caches must key on it
  const vary = allowed.size > 0 && !anyOrigin;
  return (req, res) => {
    const origin = req.headers.origin;
    const permitted = origin !== undefined && (anyOrigin || allowed.has(origin));
    if (vary) res.setHeader("vary", "Origin");
    if (permitted) {
      // "*" rather than the origin echoed: keys travel in headers, never as cookies, so no credentials mode is needed
      res.setHeader("access-control-allow-origin", anyOrigin ? "*" : origin);
      res.setHeader("access-control-expose-headers", EXPOSE_HEADERS);
    }
    if (req.method !== "OPTIONS" || req.headers["access-control-request-method"] === undefined) return false;
    if (permitted) {
      res.setHeader("access-control-allow-methods", ALLOW_METHODS);
      res.setHeader("access-control-allow-headers", ALLOW_HEADERS);
      res.setHeader("access-control-max-age", MAX_AGE_SECONDS);
    }
    res.writeHead(204);
    res.end();
    return true;
  };
}
