import type { IncomingHttpHeaders } from "node:http";

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return headers.authorization ? /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization)?.[1] : undefined;
}

/** The API key a request carries: `Authorization: Bearer <key>` (preferred) or `x-service-api-key: <key>`. */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const bearer = bearerToken(headers);
  if (bearer) return bearer;
  const header = headers["x-service-api-key"];
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || undefined;
}
