import { createGraphQLError, type GraphQLParams, type Plugin } from "graphql-yoga";

const FORM = "application/x-www-form-urlencoded";
const UNSUPPORTED =
  "A GraphQL request is a GET with query parameters, or a POST of application/json, application/graphql or " + FORM;

/**
 * GraphQL-over-HTTP parameters that are malformed answer 400 with a message naming the parameter. Yoga's own
 * parser for GET and form posts calls `JSON.parse` on `variables` and `extensions` unguarded, so a typo there
 * was a 500 with a stack trace in the log; and a non-string `operationName` ended in "Could not determine what
 * operation to execute", which does not say what was wrong; and a body of a type it cannot read got a bare 415
 * with no body. A JSON body is parsed here too, so that a body that is not JSON says INVALID_JSON itself (Yoga's
 * error for it has no code of ours, and carries the parser's exception). Yoga's checks of the parameters' types
 * are kept.
 */
export function useStrictParams(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (request.method === "GET") {
        setRequestParser((req) => paramsOf(new URL(req.url).searchParams));
      } else if (request.method === "POST" && isForm(request.headers.get("content-type"))) {
        setRequestParser(async (req) => paramsOf(new URLSearchParams(await req.text())));
      } else if (request.method === "POST" && isJson(request.headers.get("content-type"))) {
        setRequestParser(async (req) => jsonBody(await req.text()));
      } else if (!requestParser) {
        setRequestParser(() => {
          throw createGraphQLError(UNSUPPORTED, { extensions: { code: "UNSUPPORTED_MEDIA_TYPE", http: { status: 415 } } });
        });
      }
    },
    onParams({ params }) {
      for (const one of Array.isArray(params) ? params : [params]) {
        const name: unknown = one.operationName;
        if (name !== undefined && name !== null && typeof name !== "string") {
          throw badParam(`"operationName" must be a string or null, but was ${describe(name)}`, "VALIDATION_ERROR");
        }
      }
    },
  };
}

const mediaType = (contentType: string | null) => contentType?.split(",")[0]?.split(";")[0]?.trim().toLowerCase();

const isForm = (contentType: string | null): boolean => mediaType(contentType) === FORM;

// the types Yoga's own JSON parser takes, matched as it matches them
const isJson = (contentType: string | null): boolean => {
  const first = contentType?.split(",")[0];
  return ["application/json", "application/graphql+json"].some((type) => first === type || first?.startsWith(`${type};`));
};

/** A JSON body: one request's parameters, or an array of them (a batch, which Yoga refuses if not enabled). */
function jsonBody(text: string): GraphQLParams | GraphQLParams[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badParam("POST body sent invalid JSON.", "INVALID_JSON");
  }
  if (body === null || typeof body !== "object") {
    throw badParam(`POST body is expected to be object but received ${body === null ? "null" : typeof body}`, "VALIDATION_ERROR");
  }
  return body as GraphQLParams | GraphQLParams[];
}

function paramsOf(search: URLSearchParams): GraphQLParams {
  return {
    query: search.get("query") || undefined,
    operationName: search.get("operationName") || undefined,
    variables: jsonParam(search, "variables"),
    extensions: jsonParam(search, "extensions"),
  };
}

/** A parameter that holds JSON; Yoga checks afterwards that it is an object. */
function jsonParam(search: URLSearchParams, name: "variables" | "extensions"): Record<string, unknown> | undefined {
  const text = search.get(name);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw badParam(`The "${name}" parameter is not valid JSON`, "INVALID_JSON");
  }
}

function describe(value: unknown): string {
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

function badParam(message: string, code: "INVALID_JSON" | "VALIDATION_ERROR") {
  return createGraphQLError(message, { extensions: { code, http: { status: 400 } } });
}
