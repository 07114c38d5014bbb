import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

const SAFE_ID = /^[\w.:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token (so traces join up across services), else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && SAFE_ID.test(given) ? given : randomUUID();
}
