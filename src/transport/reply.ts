import type { ServerResponse } from "node:http";
import { AppError } from "../errors.ts";

/** A whole response, before it is sent (so that an idempotent request's can be stored and replayed). */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A Fetch API response (Yoga's, the MCP transport's) read whole into a Reply. */
export const bufferedReply = async (response: Response): Promise<Reply> => ({
  status: response.status,
  headers: Object.fromEntries(response.headers),
  body: await response.text(),
});

export const jsonReply = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  body: JSON.stringify(body),
});

export function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
  res.end(reply.body);
}

/**
 * Ends the connection after an answer given before the request's body had all come (a 401, a 413): the rest of it
 * is not read, and a keep-alive connection would wait for it until the request timeout, then answer it a 408.
 */
export function closeIfBodyUnread(res: ServerResponse): void {
  if (!res.req.complete) res.setHeader("connection", "close");
}

export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  send(res, jsonReply(status, body, headers));

/** Pages and service paths are read-only: any method but GET and HEAD is a 405 naming the two. */
export function requireReadMethod(method: string | undefined, path: string): void {
  if (method !== "GET" && method !== "HEAD") {
    throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}`, { headers: { allow: "GET, HEAD" } });
  }
}
