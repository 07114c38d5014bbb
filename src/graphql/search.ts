import { DEFAULT_SEARCH_LIMIT, type ScoredMemory } from "../domain/search.ts";
import { builder } from "./builder.ts";
import { hitFields, hitSelect } from "./hit.ts";
import { MemoryFilter, MetadataCondition } from "./memory.ts";

const SearchHit = builder.objectRef<ScoredMemory>("SearchHit").implement({
  fields: (t) =>
    hitFields(t, {
      score: t.float({
        description: "Relevance from 0 to 1, descending: 0.3 × the BM25 score over the query's weight + 0.7 × the cosine similarity.",
        resolve: (hit) => hit.score,
      }),
    }),
});

const SearchResults = builder.objectRef<ScoredMemory[]>("SearchResults").implement({
  fields: (t) => ({
    results: t.field({ type: [SearchHit], description: "Nearest first.", resolve: (hits) => hits }),
    total: t.int({ description: "How many results there are.", resolve: (hits) => hits.length }),
  }),
});

export const SearchFilter = builder.inputType("SearchFilter", {
  fields: (t) => ({
    type: t.string(),
    tags: t.stringList({ description: "Memories that carry every one of these tags." }),
    threadId: t.id({ description: "Memories filed under this thread." }),
    fromDate: t.field({ type: "DateTime", description: "Created at or after." }),
    toDate: t.field({ type: "DateTime", description: "Created at or before." }),
    metadata: t.field({ type: [MetadataCondition], description: "Conditions on metadata, all of which must hold." }),
    and: t.field({ type: [MemoryFilter], description: "Every one of these filters holds." }),
    or: t.field({ type: [MemoryFilter], description: "At least one of these filters holds." }),
    not: t.field({ type: MemoryFilter, description: "This filter does not hold." }),
  }),
});

builder.queryField("searchMemories", (t) =>
  t.field({
    type: SearchResults,
    description:
      "Semantic search: your live (not archived) memories nearest to the query by meaning (sentence vectors), " +
      "blended with those that share its words (BM25): a paraphrase finds its memory, and so does a word only one " +
      "memory holds.",
    args: {
      query: t.arg.string({ required: true }),
      limit: t.arg.int({ defaultValue: DEFAULT_SEARCH_LIMIT, description: "1 to 100." }),
      filter: t.arg({ type: SearchFilter }),
    },
    resolve: (_root, args, context, info) =>
      context.services.search.search(context.principal, args.query, args.limit, args.filter ?? {}, {
        select: hitSelect(context, info),
      }),
  }),
);
