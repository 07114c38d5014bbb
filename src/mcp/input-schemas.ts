import type { Limits } from "../config.ts";
import { DEFAULT_LIST_LIMIT } from "../domain/memory.ts";
import { DEFAULT_RECALL_LIMIT } from "../domain/recall.ts";
import { DEFAULT_SEARCH_LIMIT } from "../domain/search.ts";
import { DEFAULT_THREAD_LIMIT } from "../domain/thread.ts";
import { schemas } from "../rest/openapi/components.ts";
import { limitParam, offsetParam } from "../rest/openapi/route-doc.ts";
import { refName, type Parameter, type Schema } from "../rest/openapi/types.ts";

/** A tool's arguments as MCP lists them: a JSON object schema that stands alone (clients resolve no `$ref`). */
export interface InputSchema {
  type: "object";
  properties: Record<string, Schema>;
  required: string[];
  additionalProperties: false;
}

const object = (properties: Record<string, Schema>, required: string[] = []): InputSchema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

const withoutRef = ({ $ref: _ref, ...rest }: Schema): Schema => rest;

/** A query parameter of the REST reference as an argument: the same bounds and default, the same words. */
const fromParam = ({ schema, description }: Parameter): Schema => ({ ...schema, description });

const memoryId: Schema = {
  type: "string",
  format: "uuid",
  description: "The memory's id, as remember, recall, search_memories and list_memories give it.",
};

const threadId: Schema = {
  type: "string",
  format: "uuid",
  description: "The thread's id, as create_thread and list_threads give it.",
};

/**
 * The arguments of every tool. Fields a REST body has are described by the REST reference's own schemas
 * (src/rest/openapi/components.ts: the configured bounds, the same words); filters and paging, which REST takes in
 * the query string as text, are JSON-typed here. The service checks every value, as it does for REST.
 */
export function inputSchemas(limits: Limits) {
  const components = schemas(limits);
  const component = (name: string): Schema => {
    const found = components[name];
    if (!found) throw new Error(`the REST reference has no schema ${name}`);
    return found;
  };
  /** Properties `names` of a body schema, with any `$ref` replaced by what it names. */
  const fields = (schemaName: string, names: readonly string[]): Record<string, Schema> => {
    const properties = component(schemaName).properties ?? {};
    return Object.fromEntries(
      names.map((name) => {
        const field = properties[name];
        if (!field) throw new Error(`${schemaName} has no property ${name}`);
        return [name, field.$ref ? { ...component(refName(field.$ref)), ...withoutRef(field) } : field];
      }),
    );
  };
  const filters = {
    type: { type: "string", description: "Only memories of this type, e.g. preference." },
    tags: { ...fields("MemoryCreate", ["tags"]).tags, type: "array", description: "Only memories that carry every one of these tags." },
  } satisfies Record<string, Schema>;
  const offset = (what: string) => fromParam(offsetParam(what));

  return {
    remember: object(fields("MemoryCreate", ["content", "type", "tags", "metadata", "thread_id", "dedupe", "expires_at", "ttl_seconds"]), ["content"]),
    recall: object(
      { ...fields("RecallRequest", ["query", "thread_id"]), limit: fromParam(limitParam(DEFAULT_RECALL_LIMIT, "memories")) },
      ["query"],
    ),
    search_memories: object(
      {
        ...fields("SearchRequest", ["query"]),
        limit: fromParam(limitParam(DEFAULT_SEARCH_LIMIT, "results")),
        ...filters,
        from_date: { type: "string", format: "date-time", description: "Only memories created at or after this time (ISO 8601)." },
        to_date: { type: "string", format: "date-time", description: "Only memories created at or before this time (ISO 8601)." },
      },
      ["query"],
    ),
    list_memories: object({
      limit: fromParam(limitParam(DEFAULT_LIST_LIMIT, "memories")),
      offset: offset("memories"),
      cursor: {
        type: "string",
        description: "The next_cursor of the page before: the page after it, which memories added meanwhile do not shift. Not with offset.",
      },
      ...filters,
      thread_id: { ...threadId, description: "Only memories filed under this thread." },
      is_archived: { type: "boolean", description: "true: only archived memories; false: only live ones; left out: both." },
    }),
    get_memory: object({ id: memoryId }, ["id"]),
    update_memory: object(
      { id: memoryId, ...fields("MemoryPatch", ["content", "type", "tags", "metadata", "thread_id", "is_archived", "expires_at", "ttl_seconds"]) },
      ["id"],
    ),
    forget: object({ id: memoryId }, ["id"]),
    create_thread: object(fields("ThreadCreate", ["title", "description", "metadata"]), ["title"]),
    list_threads: object({
      limit: fromParam(limitParam(DEFAULT_THREAD_LIMIT, "threads")),
      offset: offset("threads"),
      status: { ...component("ThreadStatus"), description: "Only threads in this state." },
    }),
    get_thread: object(
      {
        id: threadId,
        include_memories: { type: "boolean", default: false, description: "Also give the thread's memories, newest first." },
        limit: fromParam(limitParam(DEFAULT_LIST_LIMIT, "of the thread's memories (with include_memories)")),
      },
      ["id"],
    ),
    update_thread: object({ id: threadId, ...fields("ThreadUpdate", ["title", "description", "metadata", "status"]) }, ["id"]),
  } satisfies Record<string, InputSchema>;
}

export type ToolName = keyof ReturnType<typeof inputSchemas>;
