import { MemoryServiceError } from "./errors.ts";
import { callHook, type AttemptInfo, type MemoryClientHooks, type RateLimitInfo } from "./hooks.ts";
import { newId } from "./ids.ts";
import { backoffMs, serverWaitMs } from "./retry-delay.ts";

/** The part of `fetch` the client uses; the platform's fetch fits, and so does a wrapper around it. */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  retryDelay: number;
  maxRetryAfterMs: number;
  fetch: FetchFunction;
  hooks: MemoryClientHooks | undefined;
}

export type QueryValue = string | number | boolean | Date | string[] | undefined;

export interface ApiRequest {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  /** Undefined values and empty lists are left out; lists are sent comma-separated. */
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** The body as NDJSON instead: one JSON line per item. */
  lines?: readonly unknown[];
  /** An NDJSON answer (the export): its lines, parsed. */
  ndjsonAnswer?: boolean;
  /** Sent as Idempotency-Key on every attempt of the call, so the server can recognise a retried create. */
  idempotencyKey?: string;
  /** The caller's (CallOptions): ends the call, an attempt under way or a wait between attempts, with ABORTED. */
  signal?: AbortSignal | undefined;
}

/** What every call of the client takes besides its own parameters. */
export interface CallOptions {
  /**
   * Ends the call when aborted (a component unmounted, a newer query typed): the request under way is cancelled,
   * no retry follows, and the call rejects with a MemoryServiceError of code ABORTED. A write aborted after it was
   * sent may still have been made.
   */
  signal?: AbortSignal;
}

interface Body {
  text: string;
  type: string;
}

type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; error: MemoryServiceError; retryable: boolean; waitMs: number | undefined };

/** One HTTP call to the service: fetch with a timeout, retries with backoff, and the telemetry hooks. */
export class Transport {
  private readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
  }

  async request<T>(request: ApiRequest): Promise<T> {
    const url = this.baseUrl + request.path + queryString(request.query);
    const body: Body | undefined = request.lines
      ? { text: request.lines.map((line) => `${JSON.stringify(line)}\n`).join(""), type: "application/x-ndjson" }
      : request.body === undefined
        ? undefined
        : { text: JSON.stringify(request.body), type: "application/json" };
    // whether an earlier attempt may have done the work: no answer came, or a 5xx (a 429 did nothing)
    let mayHaveRun = false;
    for (let attempt = 1; ; attempt++) {
      if (request.signal?.aborted) throw aborted(request.signal, attempt - 1);
      const info: AttemptInfo = {
        method: request.method,
        url,
        attempt,
        requestId: newId(),
        idempotencyKey: request.idempotencyKey,
      };
      callHook(this.options.hooks, "onRequest", info);
      const started = performance.now();
      const outcome = await this.attempt(info, body, request);
      if (outcome.ok) return outcome.value as T;
      // a delete retried after an attempt that may have made it finds nothing left: that attempt's success
      // (every DELETE of the API answers nothing the caller needs)
      if (request.method === "DELETE" && mayHaveRun && outcome.error.status === 404) return undefined as T;
      mayHaveRun ||= outcome.error.status !== 429;
      const durationMs = performance.now() - started;
      const next = this.afterFailure(outcome, attempt);
      if ("error" in next) {
        callHook(this.options.hooks, "onError", { ...info, error: next.error, durationMs, willRetry: false });
        throw next.error;
      }
      callHook(this.options.hooks, "onError", { ...info, error: outcome.error, durationMs, willRetry: true });
      callHook(this.options.hooks, "onRetry", { ...info, error: outcome.error, delayMs: next.delayMs });
      await sleep(next.delayMs, request.signal);
    }
  }

  private async attempt(info: AttemptInfo, body: Body | undefined, { ndjsonAnswer, signal: callerSignal }: ApiRequest): Promise<Outcome> {
    const ndjson = ndjsonAnswer === true;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: "application/json",
      "x-request-id": info.requestId,
    };
    if (body !== undefined) headers["content-type"] = body.type;
    if (info.idempotencyKey) headers["idempotency-key"] = info.idempotencyKey;

    const controller = new AbortController();
    // the timer runs until the body is read: a server that sends headers and then stalls is a timeout too
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([controller.signal, callerSignal]) : controller.signal;
    const started = performance.now();
    let response: Response;
    let text: string;
    try {
      response = await this.options.fetch(info.url, { method: info.method, headers, body: body?.text, signal });
      text = await response.text();
    } catch (cause) {
      const failed = { requestId: info.requestId, attempts: info.attempt };
      if (callerSignal?.aborted) return { ok: false, error: aborted(callerSignal, info.attempt, info.requestId), retryable: false, waitMs: undefined };
      const error = controller.signal.aborted
        ? new MemoryServiceError("TIMEOUT", `No response within ${this.options.timeoutMs} ms`, failed)
        : new MemoryServiceError("NETWORK_ERROR", `Network error: ${describe(cause)}`, { ...failed, cause });
      return { ok: false, error, retryable: true, waitMs: undefined };
    } finally {
      clearTimeout(timer);
    }

    const { status } = response;
    callHook(this.options.hooks, "onResponse", {
      ...info,
      status,
      durationMs: performance.now() - started,
      rateLimit: rateLimitOf(response.headers),
    });
    const requestId = response.headers.get("x-request-id") ?? info.requestId;
    const json = parseJson(text);
    if (response.ok) {
      const value = ndjson ? parseLines(text) : json;
      if (value) return { ok: true, value: value.value };
      const error = new MemoryServiceError("UNEXPECTED_RESPONSE", `The ${status} response is not ${ndjson ? "NDJSON" : "JSON"}`, {
        status,
        requestId,
        attempts: info.attempt,
      });
      return { ok: false, error, retryable: false, waitMs: undefined };
    }

    const waitMs = serverWaitMs(status, response.headers);
    const sent = errorBodyOf(json?.value);
    const code = status === 401 ? "INVALID_API_KEY" : status === 429 ? "RATE_LIMIT_EXCEEDED" : (sent?.code ?? "UNEXPECTED_RESPONSE");
    const message = sent?.message ?? `HTTP ${status} without an error body`;
    const error = new MemoryServiceError(code, message, { status, requestId, attempts: info.attempt, retryAfterMs: waitMs });
    // a 409 that says when to come back: the first request with the key is still running (a conflict of bodies says
    // nothing of the kind, and is final)
    const passing = status === 409 && waitMs !== undefined;
    return { ok: false, error, retryable: status === 429 || status >= 500 || passing, waitMs };
  }

  /** Either how long to wait before the next attempt, or the error the call ends with. */
  private afterFailure(
    failure: Extract<Outcome, { ok: false }>,
    attempt: number,
  ): { delayMs: number } | { error: MemoryServiceError } {
    const { error } = failure;
    if (!failure.retryable) return { error };
    // a wait longer than the caller allows is not worth sleeping through: fail now and say how long it was
    if (failure.waitMs !== undefined && failure.waitMs > this.options.maxRetryAfterMs) return { error };
    if (attempt > this.options.maxRetries) {
      // with no retry allowed, or when the last answer was a 429, the attempt's own error says it best
      if (attempt === 1 || error.code === "RATE_LIMIT_EXCEEDED") return { error };
      return {
        error: new MemoryServiceError("MAX_RETRIES", `Gave up after ${attempt} attempts: ${error.message}`, {
          status: error.status,
          requestId: error.requestId,
          attempts: attempt,
          cause: error,
        }),
      };
    }
    // never sooner than the server asked, never sooner than the backoff schedule
    return { delayMs: Math.max(failure.waitMs ?? 0, backoffMs(attempt, this.options.retryDelay)) };
  }
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length) params.set(name, value.join(","));
    } else {
      params.set(name, value instanceof Date ? value.toISOString() : String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function parseLines(text: string): { value: unknown[] } | undefined {
  const value: unknown[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const parsed = parseJson(line);
    if (!parsed) return undefined;
    value.push(parsed.value);
  }
  return { value };
}

function errorBodyOf(body: unknown): { code: string; message: string } | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const { error } = body;
  if (typeof error !== "object" || error === null || !("code" in error) || !("message" in error)) return undefined;
  return typeof error.code === "string" && typeof error.message === "string"
    ? { code: error.code, message: error.message }
    : undefined;
}

function rateLimitOf(headers: Headers): RateLimitInfo | undefined {
  const number = (name: string) => {
    const value = headers.get(name);
    return value === null || value.trim() === "" || !Number.isFinite(Number(value)) ? undefined : Number(value);
  };
  const info = {
    limit: number("x-ratelimit-limit"),
    remaining: number("x-ratelimit-remaining"),
    reset: number("x-ratelimit-reset"),
  };
  return Object.values(info).some((value) => value !== undefined) ? info : undefined;
}

/** The platform's reason (Node puts the socket error, e.g. ECONNREFUSED, in `cause`). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const inner = error.cause instanceof Error ? error.cause : undefined;
  const detail = inner && "code" in inner && typeof inner.code === "string" ? inner.code : inner?.message;
  return detail ? `${error.message} (${detail})` : error.message;
}

/** The call's end by its caller's signal. */
const aborted = (signal: AbortSignal, attempts: number, requestId?: string) =>
  new MemoryServiceError("ABORTED", "The call was aborted", { attempts, requestId, cause: signal.reason });

/** A wait between attempts, cut short when the caller's signal is aborted (the loop then ends the call). */
const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
