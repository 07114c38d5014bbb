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

/**
 * How deep any JSON a request carries may nest: well past the deepest a request means (a record's or metadata's 32
 * levels inside its body, a filter's 5), and short of what the checks that walk a value recursively (ours, and
 * graphql-js' coercion of variables) can take: a filter nested 3 000 deep overflowed the stack, a 500.
 */
const MAX_JSON_DEPTH = 64;

/** Refuses JSON text (`what`: the body, a parameter) nested deeper than MAX_JSON_DEPTH; counted in one pass, not parsed. */
export function checkJsonDepth(text: string, what: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) throw new AppError("VALIDATION_ERROR", `${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
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
  checkJsonDepth(text, "The request body");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("INVALID_JSON", `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
