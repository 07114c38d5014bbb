import type { ServerResponse } from "node:http";

/**
 * Sets the headers every response carries; a page may override them by naming the same header (the dashboard
 * sends its own Content-Security-Policy and Cache-Control). `no-store` is the default because most answers hold a
 * user's memories or keys, which no shared cache or browser history should keep.
 */
export function createSecurityHeaders(hstsMaxAgeSeconds: number | undefined): (res: ServerResponse) => void {
  const headers: Record<string, string> = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    // browsers ignore it over plain http, and behind a TLS proxy only the operator knows: sent when configured
    ...(hstsMaxAgeSeconds !== undefined ? { "strict-transport-security": `max-age=${hstsMaxAgeSeconds}` } : {}),
  };
  return (res) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  };
}
