import type { IncomingMessage } from "node:http";
import { AppError } from "../errors.ts";

const tooLarge = (limit: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes`);

/**
 * Refuses a request body sent compressed (Content-Encoding other than identity), on every path: the server
 * decodes none (read as it came, gzip's bytes were "not valid UTF-8", and a body marked zstd was taken as plain).
 */
export function requireUnencodedBody(req: IncomingMessage): void {
  const coding = req.headers["content-encoding"]?.trim().toLowerCase();
  if (coding && coding !== "identity") {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", `A request body with Content-Encoding ${coding} is not supported: send it uncompressed`);
  }
}

/** Reads the whole body, refusing (before reading, when Content-Length says so) anything over `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body as text, refused when it is not UTF-8 (which JSON and GraphQL documents must be): decoding it
 * leniently would store U+FFFD where the client's bytes were, and answer 201 as if nothing were wrong.
 */
export function bodyText(body: Uint8Array): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new AppError("INVALID_JSON", "The request body is not valid UTF-8");
  }
}

export function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

/** A REST request's body as JSON: JSON by Content-Type, present, and parseable. */
export function parseJsonBody(req: IncomingMessage, body: Buffer, { optional = false }: { optional?: boolean } = {}): unknown {
  if ((body.length > 0 || req.headers["content-type"]) && !isJsonContentType(req)) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "The request body must be JSON, sent with Content-Type: application/json");
  }
  if (body.length === 0) {
    if (optional) return undefined;
    throw new AppError("VALIDATION_ERROR", "A JSON request body is required");
  }
  const text = bodyText(body);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("INVALID_JSON", `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
