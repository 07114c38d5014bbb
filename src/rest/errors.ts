import type { AppError } from "../errors.ts";
import { jsonReply, type Reply } from "../transport/reply.ts";
import { restFilterName } from "./filter-param.ts";

// only camelCase humps: "threadId" becomes "thread_id", a header name such as "Idempotency-Key" stays
export const snakeCase = (name: string): string => name.replace(/(?<=[a-z0-9])[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

// REST calls a structured record's object `content`, which the service (and GraphQL's input) calls `data`
// (maps, not objects: a field named `__proto__` or `constructor` must not find Object.prototype's)
const REST_NAMES = new Map([["data", "content"]]);
const restName = (name: string) => REST_NAMES.get(name) ?? snakeCase(name);
// the deprecated routes' bodies are camelCase, with `kind` for the type
const LEGACY_NAMES = new Map([["type", "kind"]]);
const legacyName = (name: string) => LEGACY_NAMES.get(name) ?? name;

/** `message`, which begins with `field` when there is one, with that field's first name as `rename` spells it. */
function renamedFieldMessage(field: string | null | undefined, message: string, rename: (name: string) => string): string {
  if (!field || !message.startsWith(field)) return message;
  return rename(field) + message.slice(field.length);
}

const firstName = (path: string, rename: (name: string) => string) => path.replace(/^[A-Za-z0-9_]+/, rename);

/**
 * A field's path the REST way, each name of it (`filter`'s `and[0].thread_id`, a batch's `memories[3].content`)
 * but for those inside metadata or a record, whose keys are the caller's own, and the last when it is a name the
 * service does not know (`unknown`: of what kind), which is echoed as the caller sent it (a field's as REST spells
 * it before the filter's renaming, restFilterName).
 */
function restPath(path: string, unknown: string | undefined): string {
  const names = path.split(".");
  let own = false;
  return names
    .map((name, i) => {
      if (own) return name;
      if (unknown && i === names.length - 1) return unknown === "field" || unknown === "filter field" ? firstName(name, restFilterName) : name;
      own = /^(metadata|data)(\[\d+\])?$/.test(name);
      return firstName(name, restName);
    })
    .join(".");
}

/** What a message says of a name the service does not know: "is not a field here", "is not a query parameter"... */
const UNKNOWN_NAME = /^ is not an? (field|filter field|query parameter|operator|argument)\b/;

/** The fields a message lists as those it knows: "is not a field here (known: content, threadId, ...)". */
const KNOWN_FIELDS = /\(known: ([\w, ]*)\)/;

/** A failure as REST shows it, `{code, message}`: the fields the message names are spelled the REST way. */
export const restError = ({ code, field, message }: { code: string; field?: string | null | undefined; message: string }) => {
  const about = field && message.startsWith(field) ? field : "";
  const said = message.slice(about.length);
  const unknown = UNKNOWN_NAME.exec(said)?.[1];
  // a route's query parameters are listed as it reads them (some camelCase: the legacy scope's workspaceId); a
  // body's fields as GraphQL names them
  const rest =
    unknown === "query parameter" ? said : said.replace(KNOWN_FIELDS, (_, names: string) => `(known: ${names.split(", ").map(restName).join(", ")})`);
  return { code, message: restPath(about, unknown) + rest };
};

/** A failure as the legacy routes show it: `kind` for `type`, but a name the route does not know as it was sent. */
function legacyError({ code, field, message }: AppError): { code: string; message: string } {
  const unknown = field && message.startsWith(field) && UNKNOWN_NAME.test(message.slice(field.length));
  return { code, message: unknown ? message : renamedFieldMessage(field, message, (path) => firstName(path, legacyName)) };
}

/**
 * The REST answer to a failure: `{"error": {"code", "message"}}` with the status and headers of the error. The
 * message names fields the REST way (`thread_id`, not `threadId`, `content` for a record's `data`), or the legacy
 * routes' way when the route's bodies are camelCase (`kind` for `type`).
 */
export function restErrorReply(error: AppError, { camelCaseFields = false } = {}): Reply {
  const body = camelCaseFields ? legacyError(error) : restError(error);
  return jsonReply(error.status, { error: body }, { ...error.headers });
}
