import type { AppError } from "../errors.ts";

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The message of an error as REST shows it: the field it names in the REST spelling (`thread_id`, not
 * `threadId`). Only the top-level name is renamed; keys inside metadata or data are the caller's own.
 */
export function restMessage(error: AppError): string {
  if (!error.field) return error.message;
  const match = /^([A-Za-z0-9_]+)(.*)$/.exec(error.field);
  const field = match ? snake(match[1]!) + match[2] : error.field;
  return `${field} ${error.reason}`;
}
