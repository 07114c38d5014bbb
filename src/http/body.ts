import type { IncomingMessage } from "node:http";
import { AppError } from "../errors.ts";

const tooLarge = (limit: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limit} bytes`);

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

export function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

/** The JSON body of a REST request: JSON by Content-Type, parseable, and present. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!isJsonContentType(req)) {
    const declared = Number(req.headers["content-length"] ?? 0);
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (declared > 0 || chunked || req.headers["content-type"]) {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "The request body must be JSON, sent with Content-Type: application/json");
    }
  }
  const body = await readBody(req, limit);
  if (body.length === 0) throw new AppError("VALIDATION_ERROR", "A JSON request body is required");
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new AppError("INVALID_JSON", `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
