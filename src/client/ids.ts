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
