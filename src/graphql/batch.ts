import type { BatchItemOutcome, BatchOutcome } from "../domain/memory.ts";
import { builder } from "./builder.ts";
import { CreateMemoryInput, dedupeDescription, MemoryRef } from "./memory.ts";

/** An item's error as data: GraphQL would raise an Error a resolver returns. */
interface ItemError {
  code: string;
  message: string;
  field: string | null;
}

const BatchItemError = builder.objectRef<ItemError>("BatchItemError").implement({
  fields: (t) => ({
    code: t.exposeString("code"),
    message: t.exposeString("message"),
    field: t.exposeString("field", { nullable: true, description: "The input field at fault, when there is one." }),
  }),
});

const BatchItemResult = builder.objectRef<BatchItemOutcome>("BatchItemResult").implement({
  fields: (t) => ({
    success: t.exposeBoolean("success"),
    deduplicated: t.boolean({
      description: "The item's memory was stored already: it is answered (id, memory) instead of a copy.",
      resolve: (item) => item.deduplicated === true,
    }),
    id: t.id({ nullable: true, resolve: (item) => item.memory?.id ?? null }),
    memory: t.field({ type: MemoryRef, nullable: true, resolve: (item) => item.memory ?? null }),
    error: t.field({
      type: BatchItemError,
      nullable: true,
      resolve: ({ error }) => (error ? { code: error.code, message: error.message, field: error.field ?? null } : null),
    }),
  }),
});

const BatchSummary = builder.objectRef<BatchOutcome>("BatchSummary").implement({
  fields: (t) => ({
    total: t.int({ description: "Items submitted.", resolve: (batch) => batch.results.length }),
    successful: t.exposeInt("successful", { description: "Items stored, or answered by a duplicate already stored." }),
    failed: t.exposeInt("failed"),
  }),
});

const BatchResult = builder.objectRef<BatchOutcome>("BatchResult").implement({
  fields: (t) => ({
    summary: t.field({ type: BatchSummary, resolve: (batch) => batch }),
    results: t.field({ type: [BatchItemResult], description: "One per item, in input order.", resolve: (batch) => batch.results }),
  }),
});

builder.mutationField("batchCreateMemories", (t) =>
  t.field({
    type: BatchResult,
    description:
      "Creates 1 to 100 memories. Each item is checked on its own: valid items are stored even when others are not. An item deduplicated against a memory already stored, or against an earlier item, answers that memory.",
    args: {
      items: t.arg({ type: [CreateMemoryInput], required: true }),
      dedupe: t.arg.boolean({ description: `For the items that do not say: ${dedupeDescription}` }),
    },
    // what each result selects, once per item
    complexity: ({ items }) => ({ field: 1, multiplier: items.length }),
    resolve: (_root, { items, dedupe }, { principal, services }) => services.memories.batchCreate(principal, items, dedupe),
  }),
);
