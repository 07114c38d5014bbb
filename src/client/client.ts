import { MemoryServiceError } from "./errors.ts";
import type { MemoryClientHooks } from "./hooks.ts";
import { Memories } from "./memory.ts";
import { Records } from "./record.ts";
import { Threads } from "./thread.ts";
import { Transport, type FetchFunction } from "./transport.ts";

export interface MemoryClientOptions {
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Where the service is, e.g. `https://memory.example.com`; a path prefix is kept. */
  baseUrl: string;
  /** Per attempt, until the whole response body is read. Default 30000. */
  timeoutMs?: number;
  /** Retries after the first attempt, on 429, 5xx, network errors and timeouts. Default 3. */
  maxRetries?: number;
  /** The first retry's delay in ms; it doubles for each further retry (1 s, 2 s, 4 s). Default 1000. */
  retryDelay?: number;
  /**
   * The longest wait asked for by the server (Retry-After, X-RateLimit-Reset) that the client sleeps through
   * before retrying; a longer one fails the call at once with the wait in `retryAfterMs`. Default 60000.
   */
  maxRetryAfterMs?: number;
  /** Replaces the platform's fetch (for a proxy agent, a test double, or a runtime without a global fetch). */
  fetch?: FetchFunction;
  hooks?: MemoryClientHooks;
}

/** The memory service's client: `client.memories`, `client.threads` and `client.records` (export and import). */
export class MemoryClient {
  readonly memories: Memories;
  readonly threads: Threads;
  readonly records: Records;

  constructor(options: MemoryClientOptions) {
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
      throw new MemoryServiceError("INVALID_API_KEY", "apiKey is required", { attempts: 0 });
    }
    if (!isHttpUrl(options.baseUrl)) {
      throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    // bound: browsers refuse a fetch called with another object as `this`
    const fetch = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof fetch !== "function") throw new TypeError("No fetch in this runtime: pass options.fetch");
    const transport = new Transport({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      timeoutMs: positive("timeoutMs", options.timeoutMs ?? 30_000),
      maxRetries: count("maxRetries", options.maxRetries ?? 3),
      retryDelay: count("retryDelay", options.retryDelay ?? 1000),
      maxRetryAfterMs: count("maxRetryAfterMs", options.maxRetryAfterMs ?? 60_000),
      fetch,
      hooks: options.hooks,
    });
    this.memories = new Memories(transport);
    this.threads = new Threads(transport);
    this.records = new Records(transport);
  }
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number`);
  return value;
}

function count(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a whole number, 0 or more`);
  return value;
}
