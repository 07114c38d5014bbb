import type { Logger } from "./logger.ts";

/** The one table of error codes, shared by GraphQL (`extensions.code`) and REST (the error body). */
export const errorStatus = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  // refused by the HTTP server before any route (src/http/client-error.ts): not well-formed HTTP, too slow, too long
  // (not BAD_REQUEST: GraphQL Yoga's code for malformed GraphQL parameters, which the API calls VALIDATION_ERROR)
  MALFORMED_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(errorStatus, value);
}

export interface AppErrorOptions {
  /** The input field at fault, in GraphQL's camelCase path form (e.g. `tags[2]`). */
  field?: string;
  /** Response headers the answer must carry (Allow, Retry-After, …), whatever the protocol. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * A failure the client can act on, known by its code. It knows no protocol: graphql/errors.ts and
 * rest/errors.ts each turn it into their answer.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, reason: string, options: AppErrorOptions = {}) {
    super(options.field ? `${options.field} ${reason}` : reason, "cause" in options ? { cause: options.cause } : undefined);
    this.name = "AppError";
    this.code = code;
    this.field = options.field;
    this.headers = options.headers;
  }

  /** The HTTP status of the code, for the protocols that answer over HTTP. */
  get status(): number {
    return errorStatus[this.code];
  }
}

export const invalid = (field: string, reason: string) => new AppError("VALIDATION_ERROR", reason, { field });

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} not found`);

export const unauthorized = (reason = "Missing or invalid API key") => new AppError("UNAUTHORIZED", reason);

/** An unexpected failure: the client sees only "Internal server error"; the cause goes to the log. */
export const internalError = (cause: unknown): AppError => new AppError("INTERNAL", "Internal server error", { cause });

export const asAppError = (error: unknown): AppError => (error instanceof AppError ? error : internalError(error));

/** Logs why a dependency (the embedder, the vector index) failed a request: the client gets 503, the log the cause. */
export function logUnavailable(logger: Logger, error: AppError, context: Record<string, unknown> = {}): void {
  if (error.code === "SERVICE_UNAVAILABLE" && error.cause) logger.warn({ err: error.cause, ...context }, "a dependency is unavailable: the request failed with 503");
}
