import type { Config } from "../../config.ts";
import type { RouteInfo } from "../router.ts";
import { schemas } from "./components.ts";
import { errorResponses } from "./error-responses.ts";
import { deprecationHeaders, headers, parameters, rateLimitHeaders, requestIdHeader } from "./headers.ts";
import type { RouteDoc } from "./route-doc.ts";
import { graphqlSchemas, servicePaths } from "./service-paths.ts";
import { ref, type Method, type OpenApiDocument, type Operation, type Parameter, type Ref, type Response } from "./types.ts";

/** `/api/v1/memories/:id` as OpenAPI writes it: `/api/v1/memories/{id}`. */
export const openApiPath = (pattern: string): string => pattern.replace(/:(\w+)/g, "{$1}");

const TAGS = [
  { name: "Memories", description: "Create, read, change, delete and list your memories; batch create." },
  { name: "Search", description: "Semantic search and hybrid recall over your live memories." },
  { name: "Threads", description: "Threads group memories: a conversation, a project, a topic." },
  { name: "Export", description: "All your threads and memories as NDJSON, and back in: idempotent by id." },
  {
    name: "Webhooks",
    description: "Endpoints that receive your events (memory.created, …), signed as Standard Webhooks has it, retried when they fail.",
  },
  {
    name: "Legacy (deprecated)",
    description:
      "The workspace-scoped collection routes, on their way out: every answer carries Deprecation, Sunset, Link and " +
      "X-API-Warn. The record routes /api/v1/memories/{id} are current.",
  },
  { name: "GraphQL", description: "The GraphQL endpoint and GraphiQL." },
  { name: "Service", description: "Probes, metrics and documentation: no API key needed (unless METRICS_TOKEN is set)." },
];

const OVERVIEW = [
  "A user-scoped store of memories: text or structured records with a type, tags, metadata and an optional thread, with " +
    "list, semantic search, hybrid recall, batch create and threads. GraphQL at [/graphql](/graphql) is the primary " +
    "interface; the REST routes below are an adapter over it, with snake_case JSON names.",
  "Authentication: every /api route wants an API key, as `Authorization: Bearer <key>` (recommended) or " +
    "`x-service-api-key: <key>` (not two different keys at once: 401). A key belongs to one user, and every memory and thread made with it belongs to that " +
    "user; another user's ids answer 404 like missing ones. Keys are created and revoked in the dashboard at " +
    "[/dashboard/](/dashboard/) or with `npm run keys`.",
  'Errors: always `{"error": {"code", "message"}}`, the code deciding the status (see each operation\'s responses ' +
    "and the Error schema). A known path with another method is 405 METHOD_NOT_ALLOWED with an Allow header; an unknown " +
    "path is 404 NOT_FOUND. A trailing slash is ignored, and HEAD is answered wherever GET is.",
  "Rate limits: per API key, a fixed window; every authenticated answer carries X-RateLimit-Limit, " +
    "X-RateLimit-Remaining and X-RateLimit-Reset, and a 429 carries Retry-After.",
  "Every answer carries X-Request-Id (yours, when you send a sane one). A POST that writes may carry an Idempotency-Key " +
    "to make a retry safe (searches and recalls by POST are answered afresh).",
  "Timestamps are ISO 8601 UTC with milliseconds; ids are UUIDs.",
];

/**
 * The OpenAPI 3.1 document of the service: one operation per REST route the router holds, from the RouteDoc it
 * was added with (src/rest/routes/), plus the paths the HTTP layer answers itself.
 */
export function openApiDocument(routes: readonly RouteInfo[], config: Config, version: string): OpenApiDocument {
  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: { title: "Memory service API", version, description: OVERVIEW.join("\n\n") },
    tags: TAGS,
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    paths: servicePaths(config),
    components: {
      schemas: { ...schemas(config.limits), ...graphqlSchemas },
      headers: headers(config),
      parameters,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <API key>` (recommended)." },
        apiKeyHeader: {
          type: "apiKey",
          in: "header",
          name: "x-service-api-key",
          description: "`x-service-api-key: <API key>`: the key itself in this header.",
        },
        metricsToken: { type: "http", scheme: "bearer", description: "METRICS_TOKEN, for /metrics when the server sets one." },
      },
    },
  };
  for (const route of routes) {
    const { doc } = route;
    if (!doc) throw new Error(`The REST route ${route.method} ${route.pattern} has no OpenAPI description: add one where it is added`);
    const path = openApiPath(route.pattern);
    document.paths[path] = { ...document.paths[path], [route.method.toLowerCase() as Method]: operation(route, doc, config) };
  }
  return document;
}

function operation(route: RouteInfo, doc: RouteDoc, config: Config): Operation {
  const pathParams: Parameter[] = [...route.pattern.matchAll(/:(\w+)/g)].map(([, name]) => {
    const param = doc.pathParams?.[name!];
    if (!param) throw new Error(`${route.method} ${route.pattern}: path parameter ${name} is not described`);
    return {
      name: name!,
      in: "path",
      required: true,
      description: param.description,
      schema: { type: "string" },
      example: param.example,
    };
  });
  const { replayable } = route;
  const parametersOf: (Parameter | Ref)[] = [
    ...pathParams,
    ...(doc.query ?? []),
    ...(replayable ? [ref("parameters", "Idempotency-Key")] : []),
  ];
  const success = (answer: RouteDoc["success"]): Response => ({
    description: answer.description,
    headers: {
      ...requestIdHeader(),
      ...rateLimitHeaders(),
      ...(replayable ? { "Idempotent-Replayed": ref("headers", "Idempotent-Replayed") } : {}),
      ...(route.deprecation ? deprecationHeaders(route.deprecation) : {}),
    },
    content: {
      [answer.contentType ?? "application/json"]: {
        schema: answer.schema,
        ...(answer.example === undefined ? {} : { example: answer.example }),
      },
    },
  });
  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(route.deprecation ? { deprecated: true } : {}),
    ...(parametersOf.length ? { parameters: parametersOf } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              (doc.body.contentTypes ?? ["application/json"]).map((type) => [type, { schema: doc.body!.schema, examples: doc.body!.examples }]),
            ),
          },
        }
      : {}),
    responses: {
      [String(doc.success.status)]: success(doc.success),
      ...(doc.alternative ? { [String(doc.alternative.status)]: success(doc.alternative) } : {}),
      ...errorResponses({ method: route.method, replayable, deprecation: route.deprecation, errors: doc.errors ?? {} }, config),
    },
  };
}
