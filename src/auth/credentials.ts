import type { IncomingHttpHeaders } from "node:http";

/** The API key a request carries: `Authorization: Bearer <key>` (preferred) or `x-service-api-key: <key>`. */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const header = headers["x-service-api-key"];
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || undefined;
}
