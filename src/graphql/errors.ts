import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { AppError, asAppError, connectionLost, errorStatus, isErrorCode, logUnavailable, type ErrorCode } from "../errors.ts";
import type { Logger } from "../logger.ts";

type HttpExtension = { status?: number; headers?: Record<string, string> };

/**
 * The GraphQL form of a service error: its code (and field) in `extensions`, its status and headers in
 * `extensions.http`, which Yoga answers with (for a lone error) and leaves out of the body.
 */
function fromAppError(error: AppError, located?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: located?.nodes,
    source: located?.source,
    positions: located?.positions,
    path: located?.path,
    originalError: error,
    extensions: {
      code: error.code,
      ...(error.field ? { field: error.field } : {}),
      http: { status: error.status, ...(error.headers ? { headers: error.headers } : {}) },
    },
  });
}

/**
 * Yoga's `maskError`: a service error shows as itself; graphql-js' and Yoga's own errors pass; anything else is a
 * bug, hidden from the client and logged.
 */
export function maskError(logger: Logger) {
  return (error: unknown, message: string): Error => {
    const thrown = error instanceof GraphQLError ? error.originalError : error;
    // a database out of reach is a service error too (503), not a bug
    const original = thrown !== undefined && !(thrown instanceof GraphQLError) && connectionLost(thrown) ? asAppError(thrown) : thrown;
    if (original instanceof AppError) {
      if (original.code === "INTERNAL") logger.error({ err: original.cause ?? original }, "unexpected error in a GraphQL operation");
      logUnavailable(logger, original);
      return fromAppError(original, error instanceof GraphQLError ? error : undefined);
    }
    if (error instanceof GraphQLError && error.extensions.code === "OPERATION_RESOLUTION_FAILURE") {
      // Yoga's "Could not determine what operation to execute." says neither why nor what to send
      const reason = "The document holds more than one operation, or none by the operationName given: send operationName naming one of them";
      return new GraphQLError(reason, { extensions: error.extensions });
    }
    if (error instanceof GraphQLError && (!original || original instanceof GraphQLError)) return error;
    logger.error({ err: original }, "unexpected error in a GraphQL operation");
    return new GraphQLError(message === "Unexpected error." ? "Internal server error" : message, {
      extensions: { code: "INTERNAL", http: { status: 500 } },
    });
  };
}

/**
 * Gives every error a code from the shared table: Yoga's own request errors (wrong method, bad parameters) and
 * graphql-js' parse, validation and variable errors come without one; their status says what kind they are.
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
  const coded = result.errors?.some((error) => !isErrorCode(error.extensions?.code))
    ? { ...result, errors: result.errors.map((error) => withCode(error as GraphQLError)) }
    : result;
  return partial(coded) ? { ...coded, errors: coded.errors!.map(withoutStatus) } : coded;
}

/**
 * A result with data and errors both: some of the document ran. It is answered 200 (GraphQL over HTTP: non-null
 * data is a 2xx), the errors' codes in their extensions: answered with the first error's status (a 404 with the
 * data beside it), a client such as Apollo's took it for a failed request and dropped both (outside probe).
 */
const partial = (result: SingleResult): boolean =>
  Boolean(result.errors?.length) && result.data !== null && result.data !== undefined;

function withoutStatus(error: GraphQLError): GraphQLError {
  const http = error.extensions?.http as HttpExtension | undefined;
  if (http?.status === undefined) return error;
  return withExtensions(error, { ...error.extensions, http: http.headers ? { headers: http.headers } : {} });
}

/** The same error, where it was, with other extensions. */
const withExtensions = (error: GraphQLError, extensions: GraphQLError["extensions"]): GraphQLError =>
  new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });

function withCode(error: GraphQLError): GraphQLError {
  if (isErrorCode(error.extensions?.code)) return error;
  const http = error.extensions?.http as HttpExtension | undefined;
  const code = codeFor(http?.status);
  // no `spec` flag: Yoga would answer such errors 200 to application/json clients, and a request that cannot
  // run is a 4xx here, whatever the client accepts
  return withExtensions(error, {
    ...error.extensions,
    code,
    http: { status: http?.status ?? errorStatus[code], ...(http?.headers ? { headers: http.headers } : {}) },
  });
}

function codeFor(status: number | undefined): ErrorCode {
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
