import { queryFromInfo } from "@pothos/plugin-prisma";
import type { InputFieldBuilder } from "@pothos/core";
import { resolveCursorConnection } from "@pothos/plugin-relay";
import { MAX_TTL_SECONDS, TTL_RANGE } from "../domain/expiry.ts";
import { cursorOf } from "../domain/memory-pages.ts";
import { invalid } from "../errors.ts";
import { DEFAULT_LIST_LIMIT, memoryColumns, type Memory, type MemoryFilter as DomainMemoryFilter } from "../domain/memory.ts";
import { MAX_PAGE_SIZE, type PageOf } from "../domain/paging.ts";
import { builder, type SchemaTypes } from "./builder.ts";
import { OUT_OF_INT_RANGE } from "./int-range.ts";
import { pageArgs } from "./page.ts";

// the owner and the embedder are not part of a memory as the API shows it
const { userId: _owner, embedder: _embedder, ...shownColumns } = memoryColumns;

export const MemoryRef = builder.prismaObject("Memory", {
  description: "Something the assistant should remember about its user.",
  // the columns its fields read, every one but the embedding (which no query wants) and the owner: the fields
  // then resolve from the row as it is, where an exposed column would pass through the Prisma plugin's check of
  // the field's loader mapping for every field of every row (about a tenth of a list's CPU)
  select: shownColumns,
  fields: (t) => ({
    id: t.id({ resolve: (memory) => memory.id }),
    content: t.string({
      description: "The text; for a structured record, the canonical JSON text of `data` (keys sorted).",
      resolve: (memory) => memory.content,
    }),
    data: t.field({
      type: "JSONObject",
      nullable: true,
      description: "The structured record, when the memory was created from an object.",
      resolve: (memory) => memory.data,
    }),
    type: t.string({
      nullable: true,
      description: "preference, observation, journal, task, insight, or another short lowercase word.",
      resolve: (memory) => memory.type,
    }),
    tags: t.stringList({ resolve: (memory) => memory.tags }),
    metadata: t.field({ type: "JSONObject", resolve: (memory) => memory.metadata }),
    threadId: t.id({ nullable: true, resolve: (memory) => memory.threadId }),
    thread: t.relation("thread", { nullable: true }),
    isArchived: t.boolean({ resolve: (memory) => memory.isArchived }),
    workspaceId: t.string({
      nullable: true,
      deprecationReason: "Set only by the deprecated workspace-scoped routes.",
      resolve: (memory) => memory.workspaceId,
    }),
    legacyUserId: t.string({
      nullable: true,
      deprecationReason: "The userId a deprecated workspace-scoped request sent; it never decides ownership.",
      resolve: (memory) => memory.legacyUserId,
    }),
    expiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the memory expires: from then on no read shows it, and it is deleted soon after. Null: never.",
      resolve: (memory) => memory.expiresAt,
    }),
    createdAt: t.field({ type: "DateTime", resolve: (memory) => memory.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (memory) => memory.updatedAt }),
    deduplicated: t.boolean({
      description:
        "True only in the answer to a create (createMemory, a batch item's memory) that found this memory already stored and answered it instead of storing a copy (see CreateMemoryInput.dedupe); false everywhere else.",
      resolve: (memory) => "deduplicated" in memory && memory.deduplicated === true,
    }),
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

export const MetadataCondition = builder.inputType("MetadataCondition", {
  description:
    "A test of the value at `path` (dot-separated keys) in a memory's metadata; a list there passes when one of its elements does. Give eq, in or exists, or a range of gt/gte/lt/lte.",
  fields: (t) => ({
    path: t.string({ required: true, description: "e.g. `project` or `client.region`." }),
    eq: t.field({ type: "JSON", description: "Equal to this string, number or boolean." }),
    in: t.field({ type: ["JSON"], description: "Equal to one of these (at most 100)." }),
    gt: t.field({ type: "JSON", description: "Greater than this number, or later than this ISO 8601 date." }),
    gte: t.field({ type: "JSON", description: "At least this number or date." }),
    lt: t.field({ type: "JSON", description: "Less than this number, or earlier than this date." }),
    lte: t.field({ type: "JSON", description: "At most this number or date." }),
    exists: t.boolean({ description: "true: the key holds a value other than null; false: it does not." }),
  }),
});

export const MemoryFilter = builder.inputRef<DomainMemoryFilter>("MemoryFilter").implement({
  description: "Every field given must hold; and, or and not combine filters (nested 5 levels deep and 32 conditions at most).",
  fields: (t) => ({
    type: t.string(),
    tags: t.stringList({ description: "Memories that carry every one of these tags." }),
    threadId: t.id(),
    isArchived: t.boolean({ description: "true: only archived; false: only live; absent: both. Top level only." }),
    metadata: t.field({ type: [MetadataCondition], description: "Conditions on metadata, all of which must hold." }),
    and: t.field({ type: [MemoryFilter], description: "Every one of these filters holds." }),
    or: t.field({ type: [MemoryFilter], description: "At least one of these filters holds." }),
    not: t.field({ type: MemoryFilter, description: "This filter does not hold." }),
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
  expiresAt: t.field({
    type: "DateTime",
    description: "When the memory expires: in the future, at most ten years ahead. Not with ttlSeconds. Null: never.",
  }),
  ttlSeconds: t.int({
    description: `Expire the memory this many seconds from now (1 to ${MAX_TTL_SECONDS}, ten years). Not with expiresAt.`,
    extensions: { [OUT_OF_INT_RANGE]: TTL_RANGE },
  }),
});

/** Whether a create answers a duplicate already stored instead of storing a copy. */
export const dedupeDescription =
  "true: when you already have a memory with the same content (Unicode NFKC, case and whitespace aside; a record by its canonical JSON), type and thread (or, when the server's DEDUPE is near, one at least DEDUPE_NEAR_SIMILARITY similar), answer it (deduplicated: true) instead of storing a copy. false: always store. Absent: the server's DEDUPE rule.";

export const CreateMemoryInput = builder.inputType("CreateMemoryInput", {
  fields: (t) => ({ ...memoryFields(t), dedupe: t.boolean({ description: dedupeDescription }) }),
});
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
  memoriesConnection: t.connection({
    type: MemoryRef,
    description:
      "Your memories, newest first, a page at a time (first/after forward, last/before back, at most 100). A cursor keeps its place while memories are added.",
    args: { filter: t.arg({ type: MemoryFilter }) },
    resolve: async (_root, { filter, ...args }, context, info) => {
      // the plugin would quietly cut a larger page down: a client asking for more should hear so
      for (const side of ["first", "last"] as const) {
        const size = args[side];
        if (size != null && (size < 0 || size > MAX_PAGE_SIZE)) throw invalid(side, `must be a whole number from 0 to ${MAX_PAGE_SIZE}`);
      }
      const page = await resolveCursorConnection<Promise<Memory[]>>(
        { args, toCursor: (memory: Memory) => cursorOf(memory), defaultSize: DEFAULT_LIST_LIMIT, maxSize: MAX_PAGE_SIZE },
        (window): Promise<Memory[]> =>
          context.services.memories.listWindow(
            context.principal,
            filter ?? {},
            window,
            queryFromInfo({ context, info, path: ["edges", "node"], typeName: "Memory" }),
          ),
      );
      // an empty page's cursors: the plugin gives "" where no cursor was sent, which no request takes back; Relay's null
      const { startCursor, endCursor } = page.pageInfo;
      return { ...page, pageInfo: { ...page.pageInfo, startCursor: startCursor || null, endCursor: endCursor || null } };
    },
  }, { name: "MemoryConnection" }, { name: "MemoryEdge" }),
  memories: t.field({
    type: MemoryPage,
    description: "Your memories, newest first.",
    args: {
      filter: t.arg({ type: MemoryFilter }),
      ...pageArgs(DEFAULT_LIST_LIMIT),
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
