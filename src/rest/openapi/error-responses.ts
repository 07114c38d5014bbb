import type { Config } from "../../config.ts";
import { errorStatus, type ErrorCode } from "../../errors.ts";
import type { Deprecation } from "../router.ts";
import { deprecationHeaders, headers, rateLimitHeaders, requestIdHeader } from "./headers.ts";
import type { RouteErrors } from "./route-doc.ts";
import { ref, type Header, type Ref, type Response } from "./types.ts";

/** What the HTTP layer (src/server.ts) does around a route, which decides the errors it can answer. */
export interface RouteTraits {
  method: string;
  /** It takes an Idempotency-Key (RouteInfo.replayable). */
  replayable: boolean;
  /** A deprecated route's headers go on every answer, errors included. */
  deprecation: Deprecation | undefined;
  errors: RouteErrors;
}

const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/** The errors a route answers, by status: those every route can answer, those of its kind, and its own. */
export function errorResponses(route: RouteTraits, config: Config): Record<string, Response> {
  const withBody = WITH_BODY.has(route.method);
  const { replayable } = route;
  const cases: { code: ErrorCode; when: string; example: string }[] = [];
  const add = (applies: boolean, code: ErrorCode, when: string, example: string) => {
    if (applies) cases.push({ code, when, example });
  };

  add(
    true,
    "VALIDATION_ERROR",
    (withBody
      ? "A body field is missing, of the wrong type, unknown or out of bounds (the message begins with its name), or a"
      : "A") +
      " query parameter is invalid, unknown to the route or given twice" +
      (replayable ? ", or Idempotency-Key is malformed." : "."),
    withBody ? "tags[1] must be a string" : "limit must be a whole number from 1 to 100",
  );
  add(
    withBody,
    "INVALID_JSON",
    "The body is not parseable JSON.",
    "The request body is not valid JSON: Unexpected end of JSON input",
  );
  add(true, "UNAUTHORIZED", "No API key, or an unknown or revoked one.", "Invalid or revoked API key");
  add(
    replayable,
    "IDEMPOTENCY_CONFLICT",
    "The Idempotency-Key was used with a different request, or its first request is still running.",
    "This Idempotency-Key was already used with a different request",
  );
  if (route.deprecation) {
    const sunset = route.deprecation.sunset.toUTCString();
    add(
      true,
      "GONE",
      `The route is past its Sunset date (${sunset}) and the server enforces it (LEGACY_SUNSET_ENFORCE, ` +
        `${config.legacySunsetEnforce ? "on" : "off"} on this server).`,
      `This route was removed on ${sunset}; see ${route.deprecation.link}`,
    );
  }
  add(
    withBody,
    "PAYLOAD_TOO_LARGE",
    `The body is over ${config.limits.maxBodyBytes} bytes (MAX_BODY_BYTES); the connection is closed after the answer.`,
    `The request body must be at most ${config.limits.maxBodyBytes} bytes`,
  );
  add(
    withBody,
    "UNSUPPORTED_MEDIA_TYPE",
    "The body was sent with a Content-Type other than application/json (or another +json type).",
    "The request body must be JSON, sent with Content-Type: application/json",
  );
  add(
    true,
    "RATE_LIMITED",
    "The API key has used up its requests for the window; Retry-After says when to try again.",
    `Too many requests: at most ${config.rateLimit.max} per window; retry in 12 s`,
  );
  // every route answers so while the service starts (src/http/starting-server.ts); a route's own 503 says more
  add(
    !route.errors.SERVICE_UNAVAILABLE,
    "SERVICE_UNAVAILABLE",
    "The service is starting (every path answers so until it is up), or the database is out of reach; Retry-After says when to try again.",
    "The service is starting: try again shortly",
  );
  add(
    true,
    "INTERNAL",
    "An unexpected failure: the message reveals nothing; the log has the cause under the X-Request-Id.",
    "Internal server error",
  );
  for (const [code, { when, example }] of Object.entries(route.errors) as [ErrorCode, { when: string; example: string }][]) {
    add(true, code, when, example);
  }

  const responses: Record<string, Response> = {};
  for (const status of [...new Set(cases.map(({ code }) => errorStatus[code]))].sort((a, b) => a - b)) {
    const here = cases.filter(({ code }) => errorStatus[code] === status);
    responses[String(status)] = {
      description: here.map(({ code, when }) => `${code}: ${when}`).join("\n\n"),
      headers: status === 503 ? unavailableHeaders(route, config) : errorHeaders(status, route),
      content: {
        "application/json": {
          schema: ref("schemas", "Error"),
          examples: Object.fromEntries(
            here.map(({ code, example }) => [code, { summary: code, value: { error: { code, message: example } } }]),
          ),
        },
      },
    };
  }
  return responses;
}

/**
 * The headers of a 503: one answered while the service starts comes before the key is looked up, without the
 * rate-limit headers that one of a dependency out of reach carries; Retry-After as the answer gives it.
 */
function unavailableHeaders(route: RouteTraits, config: Config): Record<string, Header | Ref> {
  const optional = Object.entries(headers(config)).filter(([name]) => name.startsWith("X-RateLimit-") || name === "Retry-After");
  return {
    ...requestIdHeader(),
    ...Object.fromEntries(optional.map(([name, header]) => [name, { ...header, required: false }])),
    ...(route.deprecation ? deprecationHeaders(route.deprecation) : {}),
  };
}

/**
 * The headers of an error answer. Rate-limit headers come once the key is known and counted: not on 401, not on
 * a 410 (refused before authentication), not on a 500 (which may happen anywhere). A POST's client errors are kept
 * for replay like its successes.
 */
function errorHeaders(status: number, route: RouteTraits): Record<string, Header | Ref> {
  const counted = status !== 401 && status !== 410 && status !== 500;
  const replayable = route.method === "POST" && (status === 400 || status === 404 || status === 415);
  return {
    ...requestIdHeader(),
    ...(counted ? rateLimitHeaders() : {}),
    ...(status === 429 ? { "Retry-After": ref("headers", "Retry-After") } : {}),
    ...(replayable ? { "Idempotent-Replayed": ref("headers", "Idempotent-Replayed") } : {}),
    ...(route.deprecation ? deprecationHeaders(route.deprecation) : {}),
  };
}
