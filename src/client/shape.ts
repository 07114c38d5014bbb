import { MemoryServiceError } from "./errors.ts";

/**
 * `response[field]`, checked to be a list: a 2xx JSON answer without it (a proxy's, another service's) would
 * otherwise surface as a bare TypeError from deep in the client, where every failure is to be a MemoryServiceError.
 */
export function listIn<T>(response: unknown, field: string): T[] {
  const list = typeof response === "object" && response !== null ? (response as Record<string, unknown>)[field] : undefined;
  if (Array.isArray(list)) return list as T[];
  throw new MemoryServiceError("UNEXPECTED_RESPONSE", `The response has no "${field}" list: it is not the memory service's answer`);
}
