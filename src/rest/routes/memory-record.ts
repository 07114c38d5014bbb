import { notFound } from "../../errors.ts";
import { LegacyNotes, SCOPE_FIELDS, withoutLegacyFields } from "../legacy-fields.ts";
import { Operation } from "../operation.ts";
import { MEMORY_FRAGMENT, memoryInputOf, restMemory, type MemoryView } from "../memory-wire.ts";
import type { QueryInputs } from "../query-params.ts";
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

/** GET /api/v1/memories/{id} */
export const get: RestHandler = async ({ params, query, schema, context }) => {
  const notes = legacyQuery(query);
  const { memory } = await getMemory.run(schema, context, { id: params.id });
  if (!memory) throw notFound("Memory");
  return { status: 200, body: restMemory(memory), ...notes.headers() };
};

/** PATCH /api/v1/memories/{id} */
export const update: RestHandler = async ({ params, query, body, schema, context }) => {
  const notes = legacyQuery(query);
  const input = memoryInputOf(withoutLegacyFields(await body(), notes));
  const { updateMemory: memory } = await updateMemory.run(schema, context, { id: params.id, input });
  return { status: 200, body: restMemory(memory), ...notes.headers() };
};

/** PUT /api/v1/memories/{id} */
export const replace: RestHandler = async ({ params, query, body, schema, context }) => {
  const notes = legacyQuery(query);
  const input = memoryInputOf(withoutLegacyFields(await body(), notes));
  const { replaceMemory: memory } = await replaceMemory.run(schema, context, { id: params.id, input });
  return { status: 200, body: restMemory(memory), ...notes.headers() };
};

/** DELETE /api/v1/memories/{id} */
export const remove: RestHandler = async ({ params, query, schema, context }) => {
  const notes = legacyQuery(query);
  await deleteMemory.run(schema, context, { id: params.id });
  return { status: 200, body: { ok: true }, ...notes.headers() };
};

export function addMemoryRecordRoutes(router: Router): void {
  router
    .add("GET", "/api/v1/memories/:id", get)
    .add("PATCH", "/api/v1/memories/:id", update)
    .add("PUT", "/api/v1/memories/:id", replace)
    .add("DELETE", "/api/v1/memories/:id", remove);
}
