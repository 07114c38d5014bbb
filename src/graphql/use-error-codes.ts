import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { errorStatus, isErrorCode, type ErrorCode } from "../errors.ts";

/**
 * Gives every error a code from the shared table: Yoga's own request errors (bad JSON, wrong method) and
 * graphql-js' parse, validation and variable errors come without one. Yoga also copies the parser's exception
 * into `extensions.originalError` of a bad JSON body, which tells a client nothing it needs: it is dropped.
 */
export function useErrorCodes(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map(withCodes));
      else if (!(Symbol.asyncIterator in result)) setResult(withCodes(result));
    },
  };
}

type ResultProcessorInput = Parameters<NonNullable<Plugin["onResultProcess"]>>[0]["result"];
type SingleResult = Exclude<ResultProcessorInput, readonly unknown[] | AsyncIterable<unknown>>;

function withCodes(result: SingleResult): SingleResult {
  if (!result.errors?.some(needsRewrite)) return result;
  return { ...result, errors: result.errors.map((error) => withCode(error as GraphQLError)) };
}

const needsRewrite = (error: { extensions?: Record<string, unknown> }) =>
  !isErrorCode(error.extensions?.code) || error.extensions?.originalError !== undefined;

function withCode(error: GraphQLError): GraphQLError {
  if (!needsRewrite(error)) return error;
  const { originalError: _parserError, ...extensions } = error.extensions ?? {};
  const http = extensions.http as { status?: number; headers?: Record<string, string> } | undefined;
  const code = isErrorCode(extensions.code) ? extensions.code : codeFor(error.message, http?.status);
  // no `spec` flag: Yoga would answer such errors 200 to application/json clients, and a request that cannot
  // run is a 4xx here, whatever the client accepts
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: {
      ...extensions,
      code,
      http: { status: http?.status ?? errorStatus[code], ...(http?.headers ? { headers: http.headers } : {}) },
    },
  });
}

function codeFor(message: string, status: number | undefined): ErrorCode {
  if (/JSON/i.test(message) && (status === undefined || status === 400)) return "INVALID_JSON";
  switch (status) {
    case 405:
      return "METHOD_NOT_ALLOWED";
    case 413:
      return "PAYLOAD_TOO_LARGE";
    case 415:
      return "UNSUPPORTED_MEDIA_TYPE";
    case 404:
      return "NOT_FOUND";
    default:
      // parse errors, unknown fields, wrong variable types: the request itself is wrong
      return "VALIDATION_ERROR";
  }
}
