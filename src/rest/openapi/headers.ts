import type { Config } from "../../config.ts";
import type { Deprecation } from "../router.ts";
import { ref, type Header, type Parameter, type Ref } from "./types.ts";

/** The response headers several operations share, as components. */
export function headers(config: Config): Record<string, Header> {
  const { max, windowSeconds } = config.rateLimit;
  return {
    "X-Request-Id": {
      description:
        "The request's id, also in the server's log: the caller's own X-Request-Id when it is 1 to 128 letters, digits, " +
        "`_`, `.`, `:` or `-`, else a new UUID. On every response.",
      required: true,
      schema: { type: "string", maxLength: 128 },
    },
    "X-RateLimit-Limit": {
      description: `Requests allowed per API key per window (this server: ${max} per ${windowSeconds} s).`,
      required: true,
      schema: { type: "string", pattern: "^[0-9]+$", examples: [String(max)] },
    },
    "X-RateLimit-Remaining": {
      description: "Requests this key has left in the current window.",
      required: true,
      schema: { type: "string", pattern: "^[0-9]+$" },
    },
    "X-RateLimit-Reset": {
      description: "When the window resets, as Unix seconds.",
      required: true,
      schema: { type: "string", pattern: "^[0-9]+$", examples: ["1767225600"] },
    },
    "Retry-After": {
      description: "Seconds to wait before the key may send again.",
      required: true,
      schema: { type: "string", pattern: "^[0-9]+$" },
    },
    "Idempotent-Replayed": {
      description:
        "`true` when this is the stored answer to an earlier request with the same Idempotency-Key, replayed rather than run again.",
      schema: { type: "string", const: "true" },
    },
  };
}

/** Request headers that are parameters of several operations. */
export const parameters: Record<string, Parameter> = {
  "Idempotency-Key": {
    name: "Idempotency-Key",
    in: "header",
    description:
      "Makes a retry safe: 1 to 255 visible ASCII characters, unique per request you mean to make once. The first " +
      "request with a key runs and its answer (success or client error) is kept for 24 hours per user; repeating the " +
      "same request with the same key returns that answer with `Idempotent-Replayed: true` instead of running again. " +
      "The same key with a different request, or while the first is still running, is 409 IDEMPOTENCY_CONFLICT; " +
      "a failure of the server (5xx) is not kept, so a retry runs.",
    required: false,
    schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
    example: "3f1c9b7e-create-note-42",
  },
};

export const requestIdHeader = (): Record<string, Ref> => ({ "X-Request-Id": ref("headers", "X-Request-Id") });

export const rateLimitHeaders = (): Record<string, Ref> => ({
  "X-RateLimit-Limit": ref("headers", "X-RateLimit-Limit"),
  "X-RateLimit-Remaining": ref("headers", "X-RateLimit-Remaining"),
  "X-RateLimit-Reset": ref("headers", "X-RateLimit-Reset"),
});

/** The four headers on every response of a deprecated route (RFC 9745 Deprecation, RFC 8594 Sunset). */
export function deprecationHeaders(deprecation: Deprecation): Record<string, Header> {
  const sunset = deprecation.sunset.toUTCString();
  return {
    Deprecation: { description: "The route is deprecated.", required: true, schema: { type: "string", const: "true" } },
    Sunset: {
      description: "When the route goes away (HTTP date).",
      required: true,
      schema: { type: "string", const: sunset },
    },
    Link: {
      description: "The migration guide.",
      required: true,
      schema: { type: "string", const: `<${deprecation.link}>; rel="deprecation"` },
    },
    "X-API-Warn": {
      description:
        "What to use instead; then, when the request sent fields the current API dropped (userId, ttlMinutes, ttl_expires_at), which were ignored.",
      required: true,
      schema: { type: "string", examples: [deprecation.warning] },
    },
  };
}
