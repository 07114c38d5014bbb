import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import Negotiator from "negotiator";

export interface StaticFile {
  type: string;
  etag: string;
  identity: Buffer;
  /** Encodings made ahead of time; without them the compression middleware encodes the answer as it goes. */
  br?: Buffer;
  gzip?: Buffer;
}

/** For files named after their content: they never change. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** A strong ETag from the content. */
export function etagOf(content: Buffer): string {
  return `"${createHash("sha256").update(content).digest("base64url").slice(0, 27)}"`;
}

/**
 * Answers GET or HEAD with a file: 304 when the client holds it already (If-None-Match), else the smallest encoding
 * the client accepts among those made ahead of time.
 */
export function sendStatic(req: IncomingMessage, res: ServerResponse, file: StaticFile, headers: Record<string, string>): void {
  const common = { ...headers, "content-type": file.type, etag: file.etag };
  if (req.headers["if-none-match"]?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === file.etag)) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  const offered = (["br", "gzip"] as const).filter((encoding) => file[encoding] !== undefined);
  const encoding = offered.length > 0 ? new Negotiator(req).encoding([...offered, "identity"]) : undefined;
  const body = (encoding === "br" || encoding === "gzip" ? file[encoding] : undefined) ?? file.identity;
  res.writeHead(200, {
    ...common,
    ...(offered.length > 0 ? { vary: "accept-encoding" } : {}),
    ...(body !== file.identity ? { "content-encoding": encoding } : {}),
    "content-length": body.length,
  });
  res.end(req.method === "HEAD" ? undefined : body);
}
