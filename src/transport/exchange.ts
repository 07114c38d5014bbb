import type { IncomingMessage, ServerResponse } from "node:http";

/** One request and its response, as every endpoint receives them from the server's path table. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request's URL, its path without a trailing slash. */
  url: URL;
  requestId: string;
  /** What metrics count the request under: a page's path or a REST route's pattern, never a raw REST path. */
  route: string;
}

/**
 * The URL of a request, its path without a trailing slash (`/graphql/` is `/graphql`). A path is read as a path:
 * against a base, `//evil/metrics` (or `/\evil/metrics`) would name a host `evil` and leave the path `/metrics`, a
 * route that a proxy's rule on the path as sent did not see.
 */
export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? "/";
  const url = target.startsWith("/") ? new URL(`http://localhost${target}`) : new URL(target, "http://localhost");
  if (url.pathname.length > 1 && url.pathname.endsWith("/")) url.pathname = url.pathname.slice(0, -1);
  return url;
}
