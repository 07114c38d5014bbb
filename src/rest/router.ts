import type { IncomingMessage } from "node:http";
import type { GraphQLSchema } from "graphql";
import type { Context } from "../graphql/context.ts";
import type { QueryParams } from "./query-params.ts";

export interface RestRequest {
  req: IncomingMessage;
  params: Record<string, string>;
  query: QueryParams;
  context: Context;
  schema: GraphQLSchema;
  /** The parsed JSON body (read on first call). */
  body(): Promise<unknown>;
}

export interface RestResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type RestHandler = (request: RestRequest) => Promise<RestResponse>;

interface Route {
  method: string;
  segments: string[];
  handler: RestHandler;
}

export type RouteMatch =
  | { kind: "found"; handler: RestHandler; params: Record<string, string> }
  | { kind: "wrong-method"; allowed: string[] }
  | { kind: "none" };

/** Method + path patterns such as `/api/v1/memories/:id`. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: RestHandler): this {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler });
    return this;
  }

  /** Every route, for documentation and for the test that checks the OpenAPI document covers them. */
  list(): { method: string; pattern: string }[] {
    return this.routes.map((route) => ({ method: route.method, pattern: `/${route.segments.join("/")}` }));
  }

  match(method: string, path: string): RouteMatch {
    const segments = path.split("/").filter(Boolean);
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) {
        return { kind: "found", handler: route.handler, params };
      }
      allowed.push(route.method);
    }
    return allowed.length ? { kind: "wrong-method", allowed } : { kind: "none" };
  }
}

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
