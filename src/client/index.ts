// The client library's public surface, published as the package's `./client` export. Nothing here may
// import from outside src/client: it runs in browsers, Deno and Bun as well as Node.
export { MemoryClient, type MemoryClientOptions } from "./client.ts";
export {
  MemoryServiceError,
  type ClientErrorCode,
  type MemoryServiceErrorCode,
  type MemoryServiceErrorOptions,
  type ServerErrorCode,
} from "./errors.ts";
export type {
  AttemptInfo,
  ErrorEvent,
  MemoryClientHooks,
  RateLimitInfo,
  RequestEvent,
  ResponseEvent,
  RetryEvent,
} from "./hooks.ts";
export type { Memories } from "./memory.ts";
export type { Page, PagePosition, PageRequest } from "./page.ts";
export type { Records } from "./record.ts";
export type { Threads } from "./thread.ts";
export type { CallOptions, FetchFunction } from "./transport.ts";
export type * from "./types.ts";
