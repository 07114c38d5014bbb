import type { ServerResponse } from "node:http";
import { AppError } from "../errors.ts";

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** The REST error body, `{"error": {"code", "message"}}`, with the status of its code. */
export function sendError(res: ServerResponse, error: AppError, message = error.message): void {
  const http = error.extensions.http as { status: number; headers?: Record<string, string> };
  sendJson(res, http.status, { error: { code: error.code, message } }, http.headers);
}
