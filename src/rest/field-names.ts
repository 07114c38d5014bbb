import type { AppError } from "../errors.ts";

// only camelCase humps: "threadId" becomes "thread_id", a header name such as "Idempotency-Key" stays
const snake = (name: string) => name.replace(/(?<=[a-z0-9])[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The message of an error as REST shows it: the field it names in the REST spelling (`thread_id`, not
 * `threadId`). Only the top-level name is renamed; keys inside metadata or data are the caller's own.
 */
export const restMessage = (error: AppError): string => restFieldMessage(error.field, error.message);

/** `message`, which begins with `field` when there is one, with that field in the REST spelling. */
export function restFieldMessage(field: string | null | undefined, message: string): string {
  if (!field || !message.startsWith(field)) return message;
  const match = /^([A-Za-z0-9_]+)(.*)$/.exec(field);
  const restField = match ? snake(match[1]!) + match[2] : field;
  return restField + message.slice(field.length);
}
