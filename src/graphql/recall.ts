import { DEFAULT_RECALL_LIMIT, type RecallOutcome, type RecalledMemory } from "../domain/recall.ts";
import { builder } from "./builder.ts";
import { hitFields, hitSelect } from "./hit.ts";
import { SearchFilter } from "./search.ts";

const RecallPathEnum = builder.enumType("RecallPath", {
  description:
    "How recall answered: profile (a question about the user, from preference memories), thread (lexical and " +
    "semantic within the thread given), hybrid (lexical and semantic fused), semantic (no lexical match).",
  values: ["profile", "thread", "hybrid", "semantic"] as const,
});

const RecallHit = builder.objectRef<RecalledMemory>("RecallHit").implement({
  fields: (t) =>
    hitFields(t, {
      relevance: t.float({ description: "0 to 1; 1 is first in every list that ran.", resolve: (hit) => hit.relevance }),
    }),
});

const RecallResults = builder.objectRef<RecallOutcome>("RecallResults").implement({
  fields: (t) => ({
    results: t.field({ type: [RecallHit], description: "Most relevant first.", resolve: (outcome) => outcome.results }),
    total: t.int({ resolve: (outcome) => outcome.results.length }),
    queryType: t.field({ type: RecallPathEnum, resolve: (outcome) => outcome.queryType }),
  }),
});

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
      filter: t.arg({
        type: SearchFilter,
        description: "Only memories that pass it (the question-about-you path is then left out: the hybrid ranking answers).",
      }),
    },
    resolve: (_root, args, context, info) =>
      context.services.recall.recall(
        context.principal,
        args.query,
        args.limit,
        args.threadId,
        { select: hitSelect(context, info) },
        args.filter ?? {},
      ),
  }),
);
