import type { MemoryServiceError } from "./errors.ts";

/** What every hook event says about the attempt it belongs to. */
export interface AttemptInfo {
  method: string;
  /** The full URL, query string included. */
  url: string;
  /** 1 for the first try, 2 for the first retry, and so on. */
  attempt: number;
  /** The X-Request-Id the client sent; the server echoes it and logs under it. */
  requestId: string;
  /** Present on creates: the same for every attempt of one call. */
  idempotencyKey: string | undefined;
}

/** The rate-limit headers of a response; each is undefined when the server did not send it. */
export interface RateLimitInfo {
  limit: number | undefined;
  remaining: number | undefined;
  /** When the window resets, in Unix seconds. */
  reset: number | undefined;
}

export type RequestEvent = AttemptInfo;

export interface ResponseEvent extends AttemptInfo {
  /** Any status: error responses are reported here too, before onError. */
  status: number;
  /** From sending the request to having read the whole body. */
  durationMs: number;
  /** Undefined when the response carries none of the X-RateLimit-* headers. */
  rateLimit: RateLimitInfo | undefined;
}

export interface RetryEvent extends AttemptInfo {
  /** Why the attempt numbered `attempt` failed; attempt + 1 follows after delayMs. */
  error: MemoryServiceError;
  delayMs: number;
}

export interface ErrorEvent extends AttemptInfo {
  /** On the last attempt (willRetry false) this is the error the call rejects with. */
  error: MemoryServiceError;
  durationMs: number;
  willRetry: boolean;
}

interface HookEvents {
  onRequest: RequestEvent;
  onResponse: ResponseEvent;
  onRetry: RetryEvent;
  onError: ErrorEvent;
}

/**
 * Telemetry callbacks: onRequest before each attempt, onResponse for each HTTP response, onError for each
 * failed attempt, onRetry before each wait. They are not awaited, and one that throws (or rejects) is
 * ignored: observing a call must never change its outcome.
 */
export type MemoryClientHooks = { [Name in keyof HookEvents]?: (event: HookEvents[Name]) => void | Promise<void> };

export function callHook<Name extends keyof HookEvents>(
  hooks: MemoryClientHooks | undefined,
  name: Name,
  event: HookEvents[Name],
): void {
  try {
    // called on the hooks object, so that hooks written as class methods keep their `this`
    const result: unknown = hooks?.[name]?.call(hooks, event);
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // a broken hook must not break the call it observes
  }
}
