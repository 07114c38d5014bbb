import type { AppError } from "../errors.ts";
import { jsonReply, type Reply } from "../transport/reply.ts";

// only camelCase humps: "threadId" becomes "thread_id", a header name such as "Idempotency-Key" stays
export const snakeCase = (name: string): string => name.replace(/(?<=[a-z0-9])[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

// REST calls a structured record's object `content`, which the service (and GraphQL's input) calls `data`
const REST_NAMES: Record<string, string> = { data: "content" };
const restName = (name: string) => REST_NAMES[name] ?? snakeCase(name);
// the deprecated routes' bodies are camelCase, with `kind` for the type
const LEGACY_NAMES: Record<string, string> = { type: "kind" };
const legacyName = (name: string) => LEGACY_NAMES[name] ?? name;

/** `message`, which begins with `field` when there is one, with that field's first name as `rename` spells it. */
function renamedFieldMessage(field: string | null | undefined, message: string, rename: (name: string) => string): string {
  if (!field || !message.startsWith(field)) return message;
  const match = /^([A-Za-z0-9_]+)(.*)$/.exec(field);
  const renamed = match ? rename(match[1]!) + match[2] : field;
  return renamed + message.slice(field.length);
}

/** A failure as REST shows it, `{code, message}`: the field the message names is spelled the REST way. */
export const restError = ({ code, field, message }: { code: string; field?: string | null | undefined; message: string }) => ({
  code,
  message: renamedFieldMessage(field, message, restName),
});

/**
 * The REST answer to a failure: `{"error": {"code", "message"}}` with the status and headers of the error. The
 * message names the field the REST way (`thread_id`, not `threadId`, `content` for a record's `data`; only the
 * top-level name: keys inside metadata or data are the caller's own), or the legacy routes' way when the route's
 * bodies are camelCase (`kind` for `type`).
 */
export function restErrorReply(error: AppError, { camelCaseFields = false } = {}): Reply {
  const body = camelCaseFields ? { code: error.code, message: renamedFieldMessage(error.field, error.message, legacyName) } : restError(error);
  return jsonReply(error.status, { error: body }, { ...error.headers });
}
