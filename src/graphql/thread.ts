import { queryFromInfo } from "@pothos/plugin-prisma";
import { ThreadStatus } from "../generated/prisma/enums.ts";
import { unexpired } from "../domain/expiry.ts";
import { DEFAULT_LIST_LIMIT } from "../domain/memory.ts";
import { validPage, type PageOf } from "../domain/paging.ts";
import { DEFAULT_THREAD_LIMIT, type Thread } from "../domain/thread.ts";
import { checkPageArgs } from "./args-check-plugin.ts";
import { builder } from "./builder.ts";
import { pageArgs, pageType } from "./page.ts";

const ThreadStatusEnum = builder.enumType(ThreadStatus, {
  name: "ThreadStatus",
  description: "A thread is active until archived or completed.",
});

export const ThreadRef = builder.prismaObject("Thread", {
  description: "A group of memories: a conversation, a project, a topic.",
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    title: t.exposeString("title"),
    description: t.exposeString("description", { nullable: true }),
    metadata: t.expose("metadata", { type: "JSONObject" }),
    status: t.expose("status", { type: ThreadStatusEnum }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    memories: t.relation("memories", {
      description: "The thread's memories, newest first.",
      args: pageArgs(DEFAULT_LIST_LIMIT),
      // the query is made while the thread resolves: a page refused there would fail the thread, so it is refused
      // here, as this field resolves, and the query takes nothing meanwhile
      extensions: { checkArgs: checkPageArgs(DEFAULT_LIST_LIMIT) },
      query: ({ limit, offset }) => {
        const page = validPage(limit, offset, DEFAULT_LIST_LIMIT) ?? { limit: 0, offset: 0 };
        return { where: unexpired(), take: page.limit, skip: page.offset, orderBy: [{ createdAt: "desc" }, { id: "desc" }] };
      },
    }),
    memoryCount: t.relationCount("memories", { where: () => unexpired() }),
  }),
});

const ThreadPage = pageType("ThreadPage", ThreadRef);

const CreateThreadInput = builder.inputType("CreateThreadInput", {
  fields: (t) => ({
    title: t.string({ required: true }),
    description: t.string(),
    metadata: t.field({ type: "JSONObject" }),
  }),
});

const UpdateThreadInput = builder.inputType("UpdateThreadInput", {
  description: "A partial update: fields not given are kept.",
  fields: (t) => ({
    title: t.string(),
    description: t.string(),
    metadata: t.field({ type: "JSONObject" }),
    status: t.field({ type: ThreadStatusEnum }),
  }),
});

builder.queryFields((t) => ({
  thread: t.prismaField({
    type: "Thread",
    nullable: true,
    description: "One of your threads; null when there is no such thread of yours.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, { principal, services }) => services.threads.get(principal, id, query),
  }),
  threads: t.field({
    type: ThreadPage,
    description: "Your threads, newest first.",
    args: {
      status: t.arg({ type: ThreadStatusEnum }),
      ...pageArgs(DEFAULT_THREAD_LIMIT),
    },
    resolve: (_root, args, context, info) => {
      const query = queryFromInfo({ context, info, path: ["items"], typeName: "Thread" });
      return context.services.threads.list(context.principal, args.status, args.limit, args.offset, query);
    },
  }),
}));

builder.mutationFields((t) => ({
  createThread: t.prismaField({
    type: "Thread",
    args: { input: t.arg({ type: CreateThreadInput, required: true }) },
    resolve: (query, _root, { input }, { principal, services }) => services.threads.create(principal, input, query),
  }),
  updateThread: t.prismaField({
    type: "Thread",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateThreadInput, required: true }) },
    resolve: (query, _root, { id, input }, { principal, services }) =>
      services.threads.update(principal, id, input, query),
  }),
  deleteThread: t.boolean({
    description: "Deletes a thread; its memories too when deleteMemories is true, else they stay without a thread.",
    args: { id: t.arg.id({ required: true }), deleteMemories: t.arg.boolean({ defaultValue: false }) },
    resolve: async (_root, { id, deleteMemories }, { principal, services }) => {
      await services.threads.delete(principal, id, deleteMemories ?? false);
      return true;
    },
  }),
}));
