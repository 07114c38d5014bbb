import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { unauthorized } from "../errors.ts";

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return headers.authorization ? /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization)?.[1] : undefined;
}

/**
 * The API key a request carries: `Authorization: Bearer <key>` or `x-service-api-key: <key>`. Two different keys
 * are refused rather than one picked: which user the request acts for must not depend on a precedence the
 * caller (or a proxy that adds one of the headers) may not know. That holds for two Authorization headers too,
 * which Node.js's parsed headers hide (it keeps the first): they are read from the raw ones.
 */
export function presentedKey(req: Pick<IncomingMessage, "headers" | "rawHeaders">): string | undefined {
  const { headers, rawHeaders } = req;
  const authorizations = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === "authorization") authorizations.add(rawHeaders[i + 1]!.trim());
  if (authorizations.size > 1) throw unauthorized("Two different Authorization headers: send one");
  const bearer = bearerToken(headers);
  const header = headers["x-service-api-key"];
  const value = (Array.isArray(header) ? header[0] : header)?.trim() || undefined;
  if (bearer && value && bearer !== value) throw unauthorized("Two different API keys (Authorization and x-service-api-key): send one");
  return bearer ?? value;
}
