import type { AppError } from "../errors.ts";
import { jsonReply, type Reply } from "../transport/reply.ts";

// only camelCase humps: "threadId" becomes "thread_id", a header name such as "Idempotency-Key" stays
export const snakeCase = (name: string): string => name.replace(/(?<=[a-z0-9])[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** `message`, which begins with `field` when there is one, with that field in the REST spelling. */
function restFieldMessage(field: string | null | undefined, message: string): string {
  if (!field || !message.startsWith(field)) return message;
  const match = /^([A-Za-z0-9_]+)(.*)$/.exec(field);
  const restField = match ? snakeCase(match[1]!) + match[2] : field;
  return restField + message.slice(field.length);
}

/** A failure as REST shows it, `{code, message}`: the field the message names is spelled the REST way. */
export const restError = ({ code, field, message }: { code: string; field?: string | null | undefined; message: string }) => ({
  code,
  message: restFieldMessage(field, message),
});

/**
 * The REST answer to a failure: `{"error": {"code", "message"}}` with the status and headers of the error. The
 * message names the field the REST way (`thread_id`, not `threadId`; only the top-level name: keys inside
 * metadata or data are the caller's own), unless the route's bodies are camelCase (the legacy routes).
 */
export function restErrorReply(error: AppError, { camelCaseFields = false } = {}): Reply {
  const body = camelCaseFields ? { code: error.code, message: error.message } : restError(error);
  return jsonReply(error.status, { error: body }, { ...error.headers });
}
