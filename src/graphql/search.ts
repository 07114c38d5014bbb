import { queryFromInfo } from "@pothos/plugin-prisma";
import { DEFAULT_SEARCH_LIMIT, type ScoredMemory } from "../domain/search.ts";
import { builder } from "./builder.ts";
import { MemoryRef } from "./memory.ts";

const SearchHit = builder.objectRef<ScoredMemory>("SearchHit").implement({
  fields: (t) => ({
    id: t.id({ resolve: (hit) => hit.memory.id }),
    content: t.string({ resolve: (hit) => hit.memory.content }),
    type: t.string({ nullable: true, resolve: (hit) => hit.memory.type }),
    score: t.float({ description: "Relevance from 0 to 1, descending: 0.3 × the BM25 score over the query's weight + 0.7 × the cosine similarity.", resolve: (hit) => hit.score }),
    memory: t.field({ type: MemoryRef, resolve: (hit) => hit.memory }),
  }),
});

const SearchResults = builder.objectRef<ScoredMemory[]>("SearchResults").implement({
  fields: (t) => ({
    results: t.field({ type: [SearchHit], description: "Nearest first.", resolve: (hits) => hits }),
    total: t.int({ description: "How many results there are.", resolve: (hits) => hits.length }),
  }),
});

const SearchFilter = builder.inputType("SearchFilter", {
  fields: (t) => ({
    type: t.string(),
    tags: t.stringList({ description: "Memories that carry every one of these tags." }),
    fromDate: t.field({ type: "DateTime", description: "Created at or after." }),
    toDate: t.field({ type: "DateTime", description: "Created at or before." }),
  }),
});

// the columns a hit reads itself, besides what its `memory` field asks for
const HIT_COLUMNS = { id: true, content: true, type: true } as const;

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
    resolve: (_root, args, context, info) => {
      const nested = queryFromInfo({ context, info, path: ["results", "memory"], typeName: "Memory" });
      const select = { ...HIT_COLUMNS, ...nested.select };
      return context.services.search.search(context.principal, args.query, args.limit, args.filter ?? {}, { select });
    },
  }),
);
