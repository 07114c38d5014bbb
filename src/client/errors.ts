/** Codes the client raises itself, for failures that have no server error body. */
export type ClientErrorCode =
  | "TIMEOUT" // an attempt got no complete response within timeoutMs
  | "ABORTED" // the call's `signal` was aborted (CallOptions); `cause` holds its reason
  | "NETWORK_ERROR" // the connection failed or was cut
  | "MAX_RETRIES" // retries ran out on timeouts, network errors or 5xx; `cause` holds the last of them
  | "INVALID_API_KEY" // 401 from the server, or no apiKey given to the constructor
  | "RATE_LIMIT_EXCEEDED" // 429 after the retries, or a server-requested wait longer than maxRetryAfterMs
  | "UNEXPECTED_RESPONSE"; // a response that is not the service's JSON (e.g. an HTML page from a proxy)

/** Codes the server sends in `{"error": {"code"}}`, passed through as they are. */
export type ServerErrorCode =
  | "VALIDATION_ERROR"
  | "INVALID_JSON"
  | "MALFORMED_REQUEST"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "NOT_ACCEPTABLE"
  | "REQUEST_TIMEOUT"
  | "IDEMPOTENCY_CONFLICT"
  | "GONE"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "HEADERS_TOO_LARGE"
  | "INTERNAL"
  | "SERVICE_UNAVAILABLE";

// `string & {}` keeps the known codes in editor completion while letting a newer server's codes through
export type MemoryServiceErrorCode = ClientErrorCode | ServerErrorCode | (string & {});

export interface MemoryServiceErrorOptions {
  /** HTTP status of the response the error comes from; absent when there was none (timeout, network). */
  status?: number;
  /** `x-request-id` of the response, else the one the client sent: the key to the server's logs. */
  requestId?: string;
  /** How many HTTP attempts the call made: 1 when it was not retried, 0 when it failed before sending. */
  attempts?: number;
  /** How long the server asked the client to wait (Retry-After, or X-RateLimit-Reset on a 429), if it said. */
  retryAfterMs?: number;
  /** For MAX_RETRIES the last attempt's MemoryServiceError; for NETWORK_ERROR the platform's error; for ABORTED the signal's reason. */
  cause?: unknown;
}

/** Every failure of a client call, with a stable `code` to branch on. */
export class MemoryServiceError extends Error {
  readonly code: MemoryServiceErrorCode;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly attempts: number;
  readonly retryAfterMs: number | undefined;

  constructor(code: MemoryServiceErrorCode, message: string, options: MemoryServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoryServiceError";
    this.code = code;
    this.status = options.status;
    this.requestId = options.requestId;
    this.attempts = options.attempts ?? 1;
    this.retryAfterMs = options.retryAfterMs;
  }
}
