import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkMemoryFilter, type MemoryFilterInput } from "../../src/domain/memory-filter.ts";
import type { FakeQdrant } from "../support/fake-qdrant.ts";
import { filter, memory, ROOMY, THREADS } from "../support/memory-filter-arbitraries.ts";
import { matchesFilter, type FilterableMemory } from "../support/memory-filter-reference.ts";
import { describeSearchPaths } from "../support/search-paths.ts";
import { databaseUnavailable, startTestServer, type TestServer, type TestUser } from "../support/server.ts";
import { vectorsLanded } from "../support/vectors.ts";

/** The random filters a client may send (within the limits, under the `and` that wraps them). */
const clientFilter = filter.filter((input) => {
  try {
    checkMemoryFilter({ and: [input] });
    return true;
  } catch {
    return false;
  }
});

// enough memories for filters to tell apart, few enough that a search's limit takes every one that passes
const MEMORIES = 120;
const LIMIT = 1000;

interface Seeded extends FilterableMemory {
  id: string;
  archived: boolean;
}

/**
 * The filter contract, on every vector index the database under test allows: for random filters, a search by
 * vector (what differs between indexes: the words part of a search is SQL's on all of them) returns exactly the
 * user's live memories that the reference evaluation (test/support/memory-filter-reference.ts) selects.
 */
describe.skipIf(databaseUnavailable())("filter contract", () =>
  describeSearchPaths("filters", ({ kind, env, start, stop, fake }) => {
    let server: TestServer;
    let user: TestUser;
    let seeded: Seeded[] = [];
    // the arbitraries name threads by fixed ids; the server gives its own
    let threadIds = new Map<string, string>();
    const toServer = <T>(value: T): T =>
      JSON.parse(THREADS.reduce((text, thread) => text.replaceAll(thread, threadIds.get(thread)!), JSON.stringify(value))) as T;

    // the filter as the index gets it, within roomier limits than a client's (they have tests of their own)
    const nearest = async (input: MemoryFilterInput): Promise<string[]> => {
      const search = server.app.services.search;
      const where = checkMemoryFilter(toServer(input), ROOMY)!;
      const hits = await search.nearest(await search.embedQuery(user.userId, "memory about a project"), { userId: user.userId, where }, LIMIT);
      return hits.map((hit) => hit.id).sort();
    };
    const expected = (input: MemoryFilterInput): string[] => {
      const clause = checkMemoryFilter(input, ROOMY)!;
      return seeded.filter((m) => !m.archived && matchesFilter(clause, m)).map((m) => m.id).sort();
    };

    beforeAll(async () => {
      server = await startTestServer({ ...(await start?.()), ...env });
      user = await server.newUser();
      const threads = await Promise.all(THREADS.map((_, i) => user.api.post("/api/v1/threads", { title: `thread ${i}` })));
      threadIds = new Map(THREADS.map((thread, i) => [thread, threads[i]!.body.id as string]));
      const memories = fc.sample(memory, { numRuns: MEMORIES, seed: 11 });
      const bodies = memories.map((m, i) => ({
        content: `memory ${i} about project ${i % 7}`,
        type: m.type,
        tags: m.tags,
        thread_id: m.threadId === null ? null : threadIds.get(m.threadId),
        // every fifth gets its metadata by a later update: that must reach the index too
        metadata: i % 5 === 0 ? { project: "placeholder" } : m.metadata,
      }));
      const ids: string[] = [];
      for (let i = 0; i < bodies.length; i += 100) {
        const res = await user.api.post("/api/v1/memory/batch", bodies.slice(i, i + 100));
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        ids.push(...res.body.results.map((result: { id: string }) => result.id));
      }
      seeded = memories.map((m, i) => ({ ...m, id: ids[i]!, archived: i % 9 === 4 }));
      for (const [i, m] of seeded.entries()) {
        const changes = { ...(i % 5 === 0 ? { metadata: m.metadata } : {}), ...(m.archived ? { is_archived: true } : {}) };
        if (Object.keys(changes).length === 0) continue;
        const res = await user.api.patch(`/api/v1/memories/${m.id}`, changes);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      // another user's memories, which every filter could match: never found
      const other = await server.newUser();
      const foreign = await other.api.post("/api/v1/memory/batch", bodies.slice(0, 20).map(({ thread_id: _, ...body }) => body));
      expect(foreign.status).toBe(200);
      await vectorsLanded(server.app.db);
    });
    afterAll(async () => {
      await server?.close();
      await stop?.();
    });

    it(`runs on ${kind}, which ${kind === "usearch" ? "leaves boolean logic and metadata to the exact scan" : "evaluates them itself"}`, () => {
      const { index, embedder } = server.app.services;
      expect(index.kind).toBe(kind);
      expect(index.searchesWhere(embedder.id)).toBe(kind !== "usearch");
    });

    it("finds by vector exactly the memories the reference selects, for random filters", async () => {
      const queries = fake?.()?.requestsTo("POST", "/points/query").length ?? 0;
      let nonTrivial = 0;
      await fc.assert(
        fc.asyncProperty(filter, async (input) => {
          const want = expected(input);
          if (want.length > 0 && want.length < seeded.length / 2) nonTrivial++;
          expect(await nearest(input)).toEqual(want);
        }),
        { numRuns: 150, seed: 23 },
      );
      expect(nonTrivial).toBeGreaterThan(30);
      // on Qdrant, every one of those searches was Qdrant's to answer, not the exact scan's
      if (kind === "qdrant") expect(fake!()!.requestsTo("POST", "/points/query").length - queries).toBe(150);
    });

    it("searches within random filters over GraphQL: nothing outside them, and the memory the query names when it passes", async () => {
      await fc.assert(
        fc.asyncProperty(clientFilter, fc.nat({ max: MEMORIES - 1 }), async (input, n) => {
          const res = await user.api.graphql<{ searchMemories: { results: { id: string }[] } }>(
            "query ($query: String!, $filter: SearchFilter) { searchMemories(query: $query, limit: 100, filter: $filter) { results { id } } }",
            { query: `memory ${n} about project ${n % 7}`, filter: toServer({ and: [input] }) },
          );
          expect(res.body.errors).toBeUndefined();
          const want = new Set(expected(input));
          const found = res.body.data!.searchMemories.results.map((hit) => hit.id);
          expect(found.filter((id) => !want.has(id))).toEqual([]);
          if (want.has(seeded[n]!.id)) expect(found).toContain(seeded[n]!.id);
        }),
        { numRuns: 40, seed: 29 },
      );
    });

    it("takes a thread at a search or recall filter's top level, as it does inside and (REST)", async () => {
      for (const thread of THREADS) {
        const want = expected({ threadId: thread });
        expect(want.length).toBeGreaterThan(0);
        for (const route of ["/api/v1/memory/search", "/api/v1/memory/recall"]) {
          const found = async (filter: object) => {
            const res = await user.api.post(route, { query: "memory about a project", limit: 100, filter: toServer(filter) });
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            return res.body.results.map((hit: { id: string }) => hit.id).sort();
          };
          expect(await found({ thread_id: thread })).toEqual(want);
          expect(await found({ and: [{ thread_id: thread }] })).toEqual(want);
        }
      }
      const refused = await user.api.post("/api/v1/memory/search", { query: "x", filter: { thread_id: "nope" } });
      expect([refused.status, refused.body.error?.message]).toEqual([400, "thread_id must be a thread id"]);
    });
  }),
);
