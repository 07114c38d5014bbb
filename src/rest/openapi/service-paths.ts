import type { Config } from "../../config.ts";
import { headers, rateLimitHeaders, requestIdHeader } from "./headers.ts";
import { ref, type MediaType, type PathItem, type Response, type Schema } from "./types.ts";

const html = (description: string): Response => ({
  description,
  headers: requestIdHeader(),
  content: { "text/html": { schema: { type: "string" } } },
});

const json = (schema: Schema, example?: unknown): Record<string, MediaType> => ({
  "application/json": { schema, ...(example === undefined ? {} : { example }) },
});

const check: Schema = {
  type: "object",
  required: ["ok", "ms"],
  properties: {
    ok: { type: "boolean" },
    ms: { type: "number", minimum: 0, description: "How long the check took." },
    error: { type: "string", description: "Why it failed (no answer in time, or failed); the cause is in the log." },
  },
};

/** The GraphQL response shapes, as schema components (GraphQL over HTTP). */
export const graphqlSchemas: Record<string, Schema> = {
  GraphQLResult: {
    type: "object",
    description: "A GraphQL response: data, errors, or both (a partial result).",
    properties: {
      data: { type: ["object", "null"] },
      errors: { type: "array", minItems: 1, items: ref("schemas", "GraphQLError") },
    },
  },
  GraphQLError: {
    type: "object",
    required: ["message"],
    properties: {
      message: { type: "string" },
      locations: { type: "array", items: { type: "object" } },
      path: { type: "array", items: { oneOf: [{ type: "string" }, { type: "integer" }] } },
      extensions: {
        type: "object",
        properties: { code: { type: "string", description: "The same codes as the REST error body's (see Error)." } },
      },
    },
  },
};

const graphqlFailure = (description: string, headers: Response["headers"]): Response => ({
  description,
  headers,
  content: json(ref("schemas", "GraphQLResult")),
});

/**
 * The paths the HTTP layer answers itself, outside the REST router (src/server.ts): GraphQL, the probes, metrics
 * and the documentation. Keyed by path.
 */
export function servicePaths(config: Config): Record<string, PathItem> {
  const counted = { ...requestIdHeader(), ...rateLimitHeaders() };
  // the GraphiQL page is served before authentication: only a query's answer is counted
  const queryOnly = Object.fromEntries(
    Object.entries(headers(config))
      .filter(([name]) => name.startsWith("X-RateLimit-"))
      .map(([name, header]) => [name, { ...header, required: false, description: `${header.description} With ?query= only.` }]),
  );
  const failures = {
    "400": graphqlFailure("The operation does not parse or validate, or an argument is invalid.", counted),
    "401": graphqlFailure("No API key, or an unknown or revoked one (extensions.code UNAUTHORIZED).", requestIdHeader()),
    "429": graphqlFailure(
      "Over the key's rate limit, Retry-After saying when to try again; or a subscription while the user holds " +
        "HTTP_MAX_EVENT_STREAMS_PER_USER event streams open (no Retry-After: when one closes).",
      { ...counted, "Retry-After": ref("headers", "Retry-After") },
    ),
  };
  return {
    "/graphql": {
      post: {
        operationId: "graphql",
        tags: ["GraphQL"],
        summary: "Run a GraphQL operation",
        description:
          "The product's primary interface; the REST routes are an adapter over it. The schema is at /graphql " +
          "(introspection) and in schema.graphql; an Idempotency-Key makes a mutation safe to retry, as on REST.",
        parameters: [ref("parameters", "Idempotency-Key")],
        requestBody: {
          required: true,
          content: json(
            {
              type: "object",
              required: ["query"],
              properties: {
                query: { type: "string" },
                variables: { type: ["object", "null"] },
                operationName: { type: ["string", "null"] },
                extensions: { type: ["object", "null"] },
              },
            },
            { query: "query Recent { memories(limit: 5) { total items { id content type } } }" },
          ),
        },
        responses: {
          "200": {
            description: "The result; errors of a resolver come with it under errors.",
            headers: counted,
            content: json(ref("schemas", "GraphQLResult")),
          },
          "400": failures["400"],
          "401": failures["401"],
          "406": graphqlFailure(
            "The Accept header names none of the operation's answers: a query or mutation is answered as JSON, a subscription as text/event-stream (NOT_ACCEPTABLE).",
            counted,
          ),
          "409": graphqlFailure(
            "The Idempotency-Key was used with another request, or its first request is still running (IDEMPOTENCY_CONFLICT; Retry-After then).",
            counted,
          ),
          "413": graphqlFailure(`The body is over ${config.limits.maxBodyBytes} bytes.`, counted),
          "415": graphqlFailure("The body is neither JSON, application/graphql nor a form (UNSUPPORTED_MEDIA_TYPE).", counted),
          "429": failures["429"],
          "503": graphqlFailure(
            "The service is starting, or the database is out of reach (SERVICE_UNAVAILABLE); Retry-After says when to try again.",
            requestIdHeader(),
          ),
        },
      },
      get: {
        operationId: "graphiql",
        tags: ["GraphQL"],
        summary: "GraphiQL, or a query by GET",
        description:
          "A browser (Accept: text/html, no query parameter) gets GraphiQL, the in-browser IDE, with example operations; " +
          "it needs no key to load, and sends the one you put in its Headers tab. Its scripts and styles are files under " +
          "/graphiql/, named by content and cacheable for good. With ?query=, a query (not a mutation) runs " +
          "as on POST and needs a key.",
        security: [{}, { bearerAuth: [] }, { apiKeyHeader: [] }],
        parameters: [
          {
            name: "query",
            in: "query",
            description: "A GraphQL query document.",
            schema: { type: "string" },
            example: "{ me { handle } }",
          },
          { name: "variables", in: "query", description: "The variables, as JSON.", schema: { type: "string" } },
          {
            name: "operationName",
            in: "query",
            description: "Which operation of the document to run.",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": {
            description: "GraphiQL (HTML), or the query's result (JSON).",
            headers: { ...requestIdHeader(), ...queryOnly },
            content: { "text/html": { schema: { type: "string" } }, ...json(ref("schemas", "GraphQLResult")) },
          },
          "400": failures["400"],
          "401": failures["401"],
          "404": graphqlFailure(
            `A browser asked for GraphiQL and GRAPHIQL=false switches it off${config.graphiql ? "" : ", as on this server"}.`,
            requestIdHeader(),
          ),
          "429": failures["429"],
        },
      },
    },
    "/healthz": {
      get: {
        operationId: "healthz",
        tags: ["Service"],
        summary: "Liveness",
        description: "200 as soon as the server takes requests; it checks nothing else.",
        security: [],
        responses: {
          "200": {
            description: "Alive.",
            headers: requestIdHeader(),
            content: json({ type: "object", required: ["status"], properties: { status: { const: "ok" } } }, { status: "ok" }),
          },
        },
      },
    },
    "/readyz": {
      get: {
        operationId: "readyz",
        tags: ["Service"],
        summary: "Readiness",
        description:
          `Whether the database answers, the vector index is reachable and the embedder has loaded its model (the sentence ` +
          `encoder loads in the first second or so after start), each within ${config.readinessTimeoutMs} ms (READINESS_TIMEOUT_MS). ` +
          `With REDIS_URL, whether Redis answers: not required (status degraded, still 200), since without it each instance ` +
          `serves with its own live events and rate-limit counts. On the embedded database, whether its disk has 64 MB free: ` +
          `not required either (status degraded): below it writes are refused (503) while reads go on.`,
        security: [],
        responses: {
          "200": {
            description: "Ready (status degraded: Redis does not answer, or the embedded database's disk is almost full).",
            headers: requestIdHeader(),
            content: json({
              type: "object",
              required: ["status", "checks"],
              properties: {
                status: { enum: ["ready", "degraded"] },
                checks: {
                  type: "object",
                  required: ["database", "vectorIndex"],
                  properties: {
                    database: check,
                    vectorIndex: { ...check, properties: { ...check.properties, kind: { type: "string" } } },
                    embedder: { ...check, description: "Only for an embedder that loads after start (EMBEDDER=use)." },
                    redis: { ...check, description: "Only with REDIS_URL; a failure here does not fail readiness." },
                    disk: { ...check, description: "Only on the embedded database; a failure here (under 64 MB free) does not fail readiness." },
                  },
                },
              },
            }),
          },
          "503": {
            description:
              "A check failed (status unavailable, with the checks), or the server is shutting down (status draining).",
            headers: requestIdHeader(),
            content: json({
              type: "object",
              required: ["status"],
              properties: { status: { enum: ["unavailable", "draining"] }, checks: { type: "object" } },
            }),
          },
        },
      },
    },
    "/metrics": {
      get: {
        operationId: "metrics",
        tags: ["Service"],
        summary: "Prometheus metrics",
        description:
          "Request counts and latencies per route and GraphQL operation, embedder and index latencies, rate-limit " +
          `rejections, and process figures, in Prometheus' text format. ${
            config.metricsToken
              ? "This server wants METRICS_TOKEN as a Bearer token."
              : "Open on this server (METRICS_TOKEN is not set)."
          }`,
        security: [{}, { metricsToken: [] }],
        responses: {
          "200": {
            description: "The metrics.",
            headers: requestIdHeader(),
            content: { "text/plain": { schema: { type: "string" } } },
          },
          "401": {
            description: "METRICS_TOKEN is set and the request did not present it as a Bearer token.",
            headers: requestIdHeader(),
            content: json(ref("schemas", "Error")),
          },
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "openapi",
        tags: ["Service"],
        summary: "This document",
        security: [],
        responses: {
          "200": { description: "OpenAPI 3.1, as JSON.", headers: requestIdHeader(), content: json({ type: "object" }) },
        },
      },
    },
    "/docs": {
      get: {
        operationId: "docs",
        tags: ["Service"],
        summary: "This document, as a page",
        security: [],
        responses: { "200": html("The API reference.") },
      },
    },
    "/dashboard/": {
      get: {
        operationId: "dashboard",
        tags: ["Service"],
        summary: "The key dashboard",
        description: "Sign in with an API key to manage keys, memories and threads; it talks to /graphql only.",
        security: [],
        responses: { "200": html("The dashboard's page; its assets are under /dashboard/assets/.") },
      },
    },
    "/docs/migration": {
      get: {
        operationId: "migrationGuide",
        tags: ["Service"],
        summary: "Migration guide from the deprecated routes",
        security: [],
        responses: { "200": html("The guide the deprecated routes' Link header points at.") },
      },
    },
  };
}
