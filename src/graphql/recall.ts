import { queryFromInfo } from "@pothos/plugin-prisma";
import { DEFAULT_RECALL_LIMIT, type RecallOutcome, type RecalledMemory } from "../domain/recall.ts";
import { builder } from "./builder.ts";
import { MemoryRef } from "./memory.ts";

const RecallPathEnum = builder.enumType("RecallPath", {
  description:
    "How recall answered: profile (a question about the user, from preference memories), thread (lexical and " +
    "semantic within the thread given), hybrid (lexical and semantic fused), semantic (no lexical match).",
  values: ["profile", "thread", "hybrid", "semantic"] as const,
});

const RecallHit = builder.objectRef<RecalledMemory>("RecallHit").implement({
  fields: (t) => ({
    id: t.id({ resolve: (hit) => hit.memory.id }),
    content: t.string({ resolve: (hit) => hit.memory.content }),
    type: t.string({ nullable: true, resolve: (hit) => hit.memory.type }),
    relevance: t.float({ description: "0 to 1; 1 is first in every list that ran.", resolve: (hit) => hit.relevance }),
    memory: t.field({ type: MemoryRef, resolve: (hit) => hit.memory }),
  }),
});

const RecallResults = builder.objectRef<RecallOutcome>("RecallResults").implement({
  fields: (t) => ({
    results: t.field({ type: [RecallHit], description: "Most relevant first.", resolve: (outcome) => outcome.results }),
    total: t.int({ resolve: (outcome) => outcome.results.length }),
    queryType: t.field({ type: RecallPathEnum, resolve: (outcome) => outcome.queryType }),
  }),
});

const HIT_COLUMNS = { id: true, content: true, type: true } as const;

builder.queryField("recall", (t) =>
  t.field({
    type: RecallResults,
    description:
      "Hybrid recall for conversations: questions about the user answer from their preferences; anything else " +
      "combines lexical (BM25) and semantic search, within a thread when threadId is given.",
    args: {
      query: t.arg.string({ required: true }),
      limit: t.arg.int({ defaultValue: DEFAULT_RECALL_LIMIT, description: "1 to 100." }),
      threadId: t.arg.id(),
    },
    resolve: (_root, args, context, info) => {
      const nested = queryFromInfo({ context, info, path: ["results", "memory"], typeName: "Memory" });
      const select = { ...HIT_COLUMNS, ...nested.select };
      return context.services.recall.recall(context.principal, args.query, args.limit, args.threadId, { select });
    },
  }),
);
