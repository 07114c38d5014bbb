import type { IncomingHttpHeaders } from "node:http";
import { unauthorized } from "../errors.ts";

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return headers.authorization ? /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization)?.[1] : undefined;
}

/**
 * The API key a request carries: `Authorization: Bearer <key>` or `x-service-api-key: <key>`. Two different keys
 * are refused rather than one picked: which user the request acts for must not depend on a precedence the
 * caller (or a proxy that adds one of the headers) may not know.
 */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const bearer = bearerToken(headers);
  const header = headers["x-service-api-key"];
  const value = (Array.isArray(header) ? header[0] : header)?.trim() || undefined;
  if (bearer && value && bearer !== value) throw unauthorized("Two different API keys (Authorization and x-service-api-key): send one");
  return bearer ?? value;
}
