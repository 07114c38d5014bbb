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

export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  send(res, jsonReply(status, body, headers));

/** Pages and service paths are read-only: any method but GET and HEAD is a 405 naming the two. */
export function requireReadMethod(method: string | undefined, path: string): void {
  if (method !== "GET" && method !== "HEAD") {
    throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}`, { headers: { allow: "GET, HEAD" } });
  }
}
