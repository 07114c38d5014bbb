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

/** A refused credential, with the challenge RFC 6750 has a 401 carry: clients that look for it (MCP's) learn the scheme. */
export const unauthorized = (reason = "Missing or invalid API key") =>
  new AppError("UNAUTHORIZED", reason, { headers: { "www-authenticate": 'Bearer realm="memory-service"' } });

/** An unexpected failure: the client sees only "Internal server error"; the cause goes to the log. */
export const internalError = (cause: unknown): AppError => new AppError("INTERNAL", "Internal server error", { cause });

/**
 * What a database client says when its connection is gone or cannot be made: Prisma's codes (P1001 cannot reach,
 * P1002 and P1008 timed out, P1017 closed, P2024 no pooled connection in time), PostgreSQL's SQLSTATE class 08
 * (connection exception) and 57P01-57P03 (shut down, crashed, starting), the socket errors of Node.js under them;
 * the driver adapter's kinds of the same; and node-postgres' messages for a connection lost without a code, or no
 * connection within DATABASE_TIMEOUT_MS.
 */
const CONNECTION_LOST_CODE = /^(P1001|P1002|P1008|P1017|P2024|08[0-9A-Z]{3}|57P0[1-3]|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH)$/;
const CONNECTION_LOST_KIND = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const CONNECTION_LOST_MESSAGE = /^(Connection terminated|Can't reach database server|Client has encountered a connection error|timeout exceeded when trying to connect)/;

interface Failure {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** Whether `error` or one of its causes (Prisma's wrap a driver's) passes `test`. */
function anyCause(error: unknown, test: (failure: Failure) => boolean, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 5) return false;
  const failure = error as Failure;
  return test(failure) || anyCause(failure.cause, test, depth + 1) || anyCause(failure.meta?.driverAdapterError, test, depth + 1);
}

/** Whether `error`, or one of its causes, is a lost or refused database connection. */
export const connectionLost = (error: unknown): boolean =>
  anyCause(
    error,
    ({ code, kind, message }) =>
      (typeof code === "string" && CONNECTION_LOST_CODE.test(code)) ||
      (typeof kind === "string" && CONNECTION_LOST_KIND.has(kind)) ||
      (typeof message === "string" && CONNECTION_LOST_MESSAGE.test(message)),
  );

/** Whether `error`, or one of its causes, is PostgreSQL's disk_full (53100: "No space left on device"). */
const diskFull = (error: unknown): boolean =>
  anyCause(error, ({ code, message }) => code === "53100" || (typeof message === "string" && message.includes("No space left on device")));

/** A request the database could not serve for now (down, restarting, its connections cut): 503, to be retried. */
const databaseUnavailable = (cause: unknown): AppError =>
  new AppError("SERVICE_UNAVAILABLE", "The database cannot be reached; try again shortly", { cause, headers: { "retry-after": "1" } });

/** A write the database's full disk refused: 503, to be retried once space is freed (it was a bare 500). */
const diskFullError = (cause: unknown): AppError =>
  new AppError("SERVICE_UNAVAILABLE", "The database's disk is full: nothing can be stored until space is freed; try again later", {
    cause,
    headers: { "retry-after": "30" },
  });

/** The service's error for any failure: itself, a database out of reach or out of disk (503), or INTERNAL. */
export const asAppError = (error: unknown): AppError =>
  error instanceof AppError ? error : connectionLost(error) ? databaseUnavailable(error) : diskFull(error) ? diskFullError(error) : internalError(error);

/** Logs why a dependency (the embedder, the vector index, the database) failed a request: the client gets 503, the log the cause. */
export function logUnavailable(logger: Logger, error: AppError, context: Record<string, unknown> = {}): void {
  if (error.code === "SERVICE_UNAVAILABLE" && error.cause) logger.warn({ err: error.cause, ...context }, "a dependency is unavailable: the request failed with 503");
}
