import { notFound } from "../../errors.ts";
import { LegacyNotes, SCOPE_FIELDS, withoutLegacyFields } from "../legacy-fields.ts";
import { EXAMPLE_MEMORY, EXAMPLE_MEMORY_ID, EXAMPLE_THREAD_ID, legacyScopeParams, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { Operation } from "../operation.ts";
import { MEMORY_FRAGMENT, memoryInputOf, restMemory, type MemoryView } from "../memory-wire.ts";
import type { QueryInputs } from "../query-params.ts";
import { ofPathId } from "../wire-shape.ts";
import type { RestHandler, Router } from "../router.ts";

const getMemory = new Operation<{ memory: MemoryView | null }>(/* GraphQL */ `
  query RestGetMemory($id: ID!) {
    memory(id: $id) { ...RestMemory }
  }
  ${MEMORY_FRAGMENT}
`);

const updateMemory = new Operation<{ updateMemory: MemoryView }>(/* GraphQL */ `
  mutation RestUpdateMemory($id: ID!, $input: UpdateMemoryInput!) {
    updateMemory(id: $id, input: $input) { ...RestMemory }
  }
  ${MEMORY_FRAGMENT}
`);

const replaceMemory = new Operation<{ replaceMemory: MemoryView }>(/* GraphQL */ `
  mutation RestReplaceMemory($id: ID!, $input: ReplaceMemoryInput!) {
    replaceMemory(id: $id, input: $input) { ...RestMemory }
  }
  ${MEMORY_FRAGMENT}
`);

const deleteMemory = new Operation<{ deleteMemory: boolean }>(/* GraphQL */ `
  mutation RestDeleteMemory($id: ID!) {
    deleteMemory(id: $id)
  }
`);

// legacy clients reach these routes too, with the scope they used to send (see legacy-fields.ts)
const legacyQuery = (query: QueryInputs) => new LegacyNotes().scopeParams(query.only(SCOPE_FIELDS));

/** PATCH and PUT read the same body and answer the same way, each through its own mutation (`field`). */
const writing =
  <Field extends string>(field: Field, operation: Operation<Record<Field, MemoryView>>): RestHandler =>
  async ({ params, query, body, schema, context }) => {
    const notes = legacyQuery(query);
    const input = memoryInputOf(withoutLegacyFields(ofPathId(await body(), params.id), notes));
    const data = await operation.run(schema, context, { id: params.id, input });
    return { status: 200, body: restMemory(data[field]), ...notes.headers() };
  };

const MEMORY_ID = {
  id: {
    description: "The memory's id. Another user's id, or anything that is not an id, is 404 like a missing one.",
    example: EXAMPLE_MEMORY_ID,
  },
};

const NOT_FOUND = { when: "No memory with this id is yours.", example: "Memory not found" };

const getDoc: RouteDoc = {
  operationId: "getMemory",
  tag: "Memories",
  summary: "Get a memory",
  pathParams: MEMORY_ID,
  query: legacyScopeParams,
  success: { status: 200, description: "The memory.", schema: ref("schemas", "Memory"), example: EXAMPLE_MEMORY },
  errors: { NOT_FOUND },
};

/** GET /api/v1/memories/{id} */
export const get: RestHandler = async ({ params, query, schema, context }) => {
  const notes = legacyQuery(query);
  const { memory } = await getMemory.run(schema, context, { id: params.id });
  if (!memory) throw notFound("Memory");
  return { status: 200, body: restMemory(memory), ...notes.headers() };
};

/** PATCH and PUT differ in what they do with the fields left out, and say so in their bodies' examples. */
const writeDoc = (doc: Pick<RouteDoc, "operationId" | "summary" | "description" | "body">, result: string): RouteDoc => ({
  ...doc,
  tag: "Memories",
  pathParams: MEMORY_ID,
  query: legacyScopeParams,
  success: { status: 200, description: `The memory as ${result}.`, schema: ref("schemas", "Memory") },
  errors: { NOT_FOUND },
});

const updateDoc = writeDoc(
  {
    operationId: "updateMemory",
    summary: "Update a memory (partial)",
    description: "Changes the fields sent and keeps the others.",
    body: {
      schema: ref("schemas", "MemoryPatch"),
      examples: {
        archive: { summary: "Archive it", value: { is_archived: true } },
        retag: {
          summary: "Move it to a thread and retag it",
          value: { thread_id: EXAMPLE_THREAD_ID, tags: ["drinks", "morning"] },
        },
      },
    },
  },
  "changed",
);

/** PATCH /api/v1/memories/{id} */
export const update = writing("updateMemory", updateMemory);

const replaceDoc = writeDoc(
  {
    operationId: "replaceMemory",
    summary: "Replace a memory (full)",
    description: "Replaces every writable field; a field left out goes back to its default.",
    body: {
      schema: ref("schemas", "MemoryReplace"),
      examples: {
        replace: {
          summary: "A new text and type; tags, metadata and thread cleared",
          value: { content: "I prefer green tea", type: "preference" },
        },
      },
    },
  },
  "replaced",
);

/** PUT /api/v1/memories/{id} */
export const replace = writing("replaceMemory", replaceMemory);

const removeDoc: RouteDoc = {
  operationId: "deleteMemory",
  tag: "Memories",
  summary: "Delete a memory",
  pathParams: MEMORY_ID,
  query: legacyScopeParams,
  success: { status: 200, description: "Deleted.", schema: ref("schemas", "Ok"), example: { ok: true } },
  errors: { NOT_FOUND },
};

/** DELETE /api/v1/memories/{id} */
export const remove: RestHandler = async ({ params, query, schema, context }) => {
  const notes = legacyQuery(query);
  await deleteMemory.run(schema, context, { id: params.id });
  return { status: 200, body: { ok: true }, ...notes.headers() };
};

export function addMemoryRecordRoutes(router: Router): void {
  router
    .add("GET", "/api/v1/memories/:id", get, { doc: getDoc })
    .add("PATCH", "/api/v1/memories/:id", update, { doc: updateDoc })
    .add("PUT", "/api/v1/memories/:id", replace, { doc: replaceDoc })
    .add("DELETE", "/api/v1/memories/:id", remove, { doc: removeDoc });
}
