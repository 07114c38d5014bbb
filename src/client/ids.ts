import { MemoryServiceError } from "./errors.ts";

/**
 * `collection` + "/" + the id, encoded. An empty id is refused before anything is sent: the path would name the
 * collection itself (GET /api/v1/threads/ answered a list, typed as a thread).
 */
export function idPath(collection: string, id: string): string {
  if (id === "") throw new MemoryServiceError("VALIDATION_ERROR", "id must not be empty", { attempts: 0 });
  return `${collection}/${encodeURIComponent(id)}`;
}

/**
 * A random v4 UUID, for Idempotency-Key and X-Request-Id. `crypto.randomUUID` is missing in older runtimes
 * and, in browsers, on pages not served over HTTPS; these ids only need to be unique, not secret, so
 * Math.random is an acceptable fallback there.
 */
export function newId(): string {
  if (typeof globalThis.crypto?.randomUUID === "function") return globalThis.crypto.randomUUID();
  return "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".replace(/[xy]/g, (char) => {
    const nibble = Math.floor(Math.random() * 16);
    return (char === "x" ? nibble : (nibble & 0x3) | 0x8).toString(16);
  });
}

let lastMs = 0;
let sequence = 0;

/**
 * A UUID version 7 (RFC 9562) for a record the client names itself (an import's line without an id): its
 * millisecond, a 12-bit sequence, random bits. Ids made in one process increase, as the server's own do, so that
 * records imported together keep their order where ids break ties (a thread's memories in recall). The
 * service's newId (src/domain/ids.ts) made again here: the client package imports nothing of the service.
 */
export function newRecordId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs++;
    sequence = 0;
  }
  const time = lastMs.toString(16).padStart(12, "0");
  const random = newId().replaceAll("-", "");
  const variant = ((Number.parseInt(random[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${sequence.toString(16).padStart(3, "0")}-${variant}${random.slice(17, 20)}-${random.slice(20)}`;
}
