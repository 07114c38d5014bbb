import { GraphQLError } from "graphql";

/** The one table of error codes, shared by GraphQL (`extensions.code`) and REST (the error body). */
export const errorStatus = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
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
  headers?: Record<string, string>;
}

/**
 * A failure the client can act on. It is a GraphQLError so that Yoga shows it unmasked, with the code in
 * `extensions.code` and the HTTP status in `extensions.http` (which sets the status of a lone error).
 */
export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  /** The message without the field name, so that each protocol can name the field its own way. */
  readonly reason: string;

  constructor(code: ErrorCode, reason: string, options: AppErrorOptions = {}) {
    const message = options.field ? `${options.field} ${reason}` : reason;
    super(message, {
      extensions: {
        code,
        ...(options.field ? { field: options.field } : {}),
        http: { status: errorStatus[code], ...(options.headers ? { headers: options.headers } : {}) },
      },
    });
    this.name = "AppError";
    this.code = code;
    this.field = options.field;
    this.reason = reason;
  }
}

export const invalid = (field: string, reason: string) => new AppError("VALIDATION_ERROR", reason, { field });

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} not found`);

export const unauthorized = (reason = "Missing or invalid API key") => new AppError("UNAUTHORIZED", reason);

/** An unexpected failure: the client sees only "Internal server error"; the cause goes to the log. */
export function internalError(cause: unknown): AppError {
  const error = new AppError("INTERNAL", "Internal server error");
  error.cause = cause;
  return error;
}

export const asAppError = (error: unknown): AppError => (error instanceof AppError ? error : internalError(error));
