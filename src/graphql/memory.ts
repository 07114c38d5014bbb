import { queryFromInfo } from "@pothos/plugin-prisma";
import type { InputFieldBuilder } from "@pothos/core";
import { DEFAULT_LIST_LIMIT, type Memory } from "../domain/memories.ts";
import type { PageOf } from "../domain/paging.ts";
import { builder, type SchemaTypes } from "./builder.ts";

export const MemoryRef = builder.prismaObject("Memory", {
  description: "Something the assistant should remember about its user.",
  // only the columns a query asks for are read (a memory also holds its embedding, which no query wants)
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    content: t.exposeString("content", {
      description: "The text; for a structured record, the canonical JSON text of `data` (keys sorted).",
    }),
    data: t.expose("data", {
      type: "JSONObject",
      nullable: true,
      description: "The structured record, when the memory was created from an object.",
    }),
    type: t.exposeString("type", {
      nullable: true,
      description: "preference, observation, journal, task, insight, or another short lowercase word.",
    }),
    tags: t.exposeStringList("tags"),
    metadata: t.expose("metadata", { type: "JSONObject" }),
    threadId: t.exposeID("threadId", { nullable: true }),
    thread: t.relation("thread", { nullable: true }),
    isArchived: t.exposeBoolean("isArchived"),
    workspaceId: t.exposeString("workspaceId", {
      nullable: true,
      deprecationReason: "Set only by the deprecated workspace-scoped routes.",
    }),
    legacyUserId: t.exposeString("legacyUserId", {
      nullable: true,
      deprecationReason: "The userId a deprecated workspace-scoped request sent; it never decides ownership.",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

export const MemoryPage = builder.objectRef<PageOf<Memory>>("MemoryPage").implement({
  fields: (t) => ({
    items: t.field({ type: [MemoryRef], resolve: (page) => page.items }),
    total: t.exposeInt("total", { description: "How many memories match the filter in all." }),
    limit: t.exposeInt("limit"),
    offset: t.exposeInt("offset"),
    hasMore: t.exposeBoolean("hasMore"),
  }),
});

const MemoryFilter = builder.inputType("MemoryFilter", {
  fields: (t) => ({
    type: t.string(),
    tags: t.stringList({ description: "Memories that carry every one of these tags." }),
    threadId: t.id(),
    isArchived: t.boolean({ description: "true: only archived; false: only live; absent: both." }),
  }),
});

const memoryFields = (t: InputFieldBuilder<SchemaTypes, "InputObject">) => ({
  content: t.string({ description: "The text to remember. Give content or data." }),
  data: t.field({ type: "JSONObject", description: "A structured record to remember, instead of content." }),
  type: t.string(),
  tags: t.stringList(),
  metadata: t.field({ type: "JSONObject" }),
  threadId: t.id({ description: "A thread of yours to file the memory under." }),
  isArchived: t.boolean(),
});

export const CreateMemoryInput = builder.inputType("CreateMemoryInput", { fields: memoryFields });
const UpdateMemoryInput = builder.inputType("UpdateMemoryInput", {
  description: "A partial update: fields not given are kept; null clears a field.",
  fields: memoryFields,
});
const ReplaceMemoryInput = builder.inputType("ReplaceMemoryInput", {
  description: "A full replacement: fields not given go back to their defaults.",
  fields: memoryFields,
});

builder.queryFields((t) => ({
  memory: t.prismaField({
    type: "Memory",
    nullable: true,
    description: "One of your memories; null when there is no such memory of yours.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, { principal, services }) => services.memories.get(principal, id, query),
  }),
  memories: t.field({
    type: MemoryPage,
    description: "Your memories, newest first.",
    args: {
      filter: t.arg({ type: MemoryFilter }),
      limit: t.arg.int({ defaultValue: DEFAULT_LIST_LIMIT, description: "1 to 100." }),
      offset: t.arg.int({ defaultValue: 0 }),
    },
    resolve: (_root, args, context, info) =>
      context.services.memories.list(
        context.principal,
        args.filter ?? {},
        args.limit,
        args.offset,
        queryFromInfo({ context, info, path: ["items"], typeName: "Memory" }),
      ),
  }),
}));

builder.mutationFields((t) => ({
  createMemory: t.prismaField({
    type: "Memory",
    args: { input: t.arg({ type: CreateMemoryInput, required: true }) },
    resolve: (_query, _root, { input }, { principal, services }) => services.memories.create(principal, input),
  }),
  updateMemory: t.prismaField({
    type: "Memory",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateMemoryInput, required: true }) },
    resolve: (query, _root, { id, input }, { principal, services }) =>
      services.memories.update(principal, id, input, query),
  }),
  replaceMemory: t.prismaField({
    type: "Memory",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ReplaceMemoryInput, required: true }) },
    resolve: (query, _root, { id, input }, { principal, services }) =>
      services.memories.replace(principal, id, input, query),
  }),
  deleteMemory: t.boolean({
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, { principal, services }) => {
      await services.memories.delete(principal, id);
      return true;
    },
  }),
}));
