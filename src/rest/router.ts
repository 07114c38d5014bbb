import type { IncomingMessage } from "node:http";
import type { GraphQLSchema } from "graphql";
import type { Context } from "../graphql/context.ts";
import type { RouteDoc } from "./openapi/route-doc.ts";
import type { QueryInputs } from "./query-params.ts";

export interface RestRequest {
  req: IncomingMessage;
  params: Record<string, string>;
  query: QueryInputs;
  context: Context;
  schema: GraphQLSchema;
  /** The parsed JSON body (read on first call); `optional`: undefined when the request has none, else required. */
  body(options?: { optional?: boolean }): Promise<unknown>;
}

export interface RestResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A streaming route's answer instead of `body`: NDJSON, one line an item, 200, sent as the items come. */
  lines?: AsyncIterable<unknown>;
}

export type RestHandler = (request: RestRequest) => Promise<RestResponse>;

/** A route on its way out (RFC 9745 Deprecation, RFC 8594 Sunset): every response says so. */
export interface Deprecation {
  sunset: Date;
  /** Where the migration guide is. */
  link: string;
  /** X-API-Warn: what to use instead. */
  warning: string;
}

export interface RouteOptions {
  /** Its OpenAPI description: /openapi.json cannot be built while a route lacks one. */
  doc?: RouteDoc;
  deprecation?: Deprecation;
  /** The route's bodies use camelCase names (the legacy routes), so its errors name fields that way. */
  camelCaseFields?: boolean;
  /**
   * The route reads its request body itself, as it goes (`body()` is not there), and may answer `lines`. Such a
   * route is idempotent by its own rules: no Idempotency-Key replay, which would need the whole body.
   */
  streaming?: boolean;
  /**
   * The route only reads (a search or a recall by POST, for inputs too long for a query string): answered afresh
   * every time, as its GET is. An Idempotency-Key is taken and not kept: a replay would show memories deleted or
   * expired since, and a read needs none to be retried safely.
   */
  reads?: boolean;
}

interface Route {
  method: string;
  segments: string[];
  handler: RestHandler;
  options: RouteOptions;
}

/** A route as the router lists it, for its documentation. */
export interface RouteInfo {
  method: string;
  pattern: string;
  deprecated: boolean;
  deprecation: Deprecation | undefined;
  doc: RouteDoc | undefined;
  /** A POST whose answer an Idempotency-Key keeps and replays: neither streaming nor only reading. */
  replayable: boolean;
}

/** `pattern` is the route's, e.g. `/api/v1/memories/:id`: what metrics count requests under. */
export type RouteMatch =
  | { kind: "found"; pattern: string; handler: RestHandler; params: Record<string, string>; options: RouteOptions }
  /** `deprecation`: the path's, when every route on it is on its way out (the legacy collection path) */
  | { kind: "wrong-method"; pattern: string; allowed: string[]; deprecation: Deprecation | undefined }
  | { kind: "none" };

/** Method + path patterns such as `/api/v1/memories/:id`. */
export class Router {
  private readonly routes: Route[] = [];

  /** `now` decides whether a deprecated route is past its sunset: a seam for tests, which set the date. */
  constructor(private readonly now: () => Date = () => new Date()) {}

  pastSunset(deprecation: Deprecation): boolean {
    return this.now() > deprecation.sunset;
  }

  add(method: string, pattern: string, handler: RestHandler, options: RouteOptions = {}): this {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler, options });
    return this;
  }

  /** Every route, for documentation and for the test that checks the OpenAPI document covers them. */
  list(): RouteInfo[] {
    return this.routes.map((route) => ({
      method: route.method,
      pattern: patternOf(route),
      deprecated: route.options.deprecation !== undefined,
      deprecation: route.options.deprecation,
      doc: route.options.doc,
      replayable: route.method === "POST" && !route.options.streaming && !route.options.reads,
    }));
  }

  /** The handler added for `method` on `pattern` itself (e.g. `PATCH`, `/api/v1/memories/:id`), for MCP tools. */
  handler(method: string, pattern: string): RestHandler | undefined {
    return this.routes.find((route) => route.method === method && patternOf(route) === pattern)?.handler;
  }

  match(method: string, path: string): RouteMatch {
    const segments = path.split("/").filter(Boolean);
    const allowed: Route[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) {
        return { kind: "found", pattern: patternOf(route), handler: route.handler, params, options: route.options };
      }
      allowed.push(route);
    }
    if (allowed.length === 0) return { kind: "none" };
    const deprecations = allowed.map((route) => route.options.deprecation);
    return {
      kind: "wrong-method",
      pattern: patternOf(allowed[0]!),
      // a GET route answers HEAD as well (above), so Allow names it, as the server's own paths do
      allowed: allowed.flatMap((route) => (route.method === "GET" ? ["GET", "HEAD"] : [route.method])),
      deprecation: deprecations.every(Boolean) ? deprecations[0] : undefined,
    };
  }
}

const patternOf = (route: Route) => `/${route.segments.join("/")}`;

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith(":")) {
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}
