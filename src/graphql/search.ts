import { queryFromInfo } from "@pothos/plugin-prisma";
import { DEFAULT_SEARCH_LIMIT, type ScoredMemory } from "../domain/search.ts";
import { builder } from "./builder.ts";
import { MemoryRef } from "./memory.ts";

const SearchHit = builder.objectRef<ScoredMemory>("SearchHit").implement({
  fields: (t) => ({
    id: t.id({ resolve: (hit) => hit.memory.id }),
    content: t.string({ resolve: (hit) => hit.memory.content }),
    type: t.string({ nullable: true, resolve: (hit) => hit.memory.type }),
    score: t.float({ description: "Cosine similarity of query and memory, from -1 to 1; higher is closer.", resolve: (hit) => hit.score }),
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
      "Semantic search: your live (not archived) memories nearest to the query by embedding. With the built-in " +
      "embedder, nearness means shared wording and word forms, not synonyms.",
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
