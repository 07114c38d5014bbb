import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cosine } from "../../src/vectors/codec.ts";
import { SEARCH_FIXTURE } from "../support/search-fixture.ts";
import { describeSearchPaths } from "../support/search-paths.ts";
import { databaseUnavailable, serverWithUser, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

interface Hit {
  id: string;
  content: string;
  type: string | null;
  tags: string[];
  score: number;
}

/** One suite of search behaviour, run on every vector index path the database under test allows. */
describe.skipIf(databaseUnavailable())("search paths", () => describeSearchPaths("search", ({ kind, env, start, stop }) => {
  let server: TestServer;
  let user: TestUser;
  const ids = new Map<string, string>(); // content -> id
  let between: string; // a moment after the first half of the fixture was written

  const search = async (query: string, params = ""): Promise<Hit[]> => {
    const res = await user.api.get(`/api/v1/memory/search?query=${encodeURIComponent(query)}${params}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.total).toBe(res.body.results.length);
    return res.body.results;
  };

  beforeAll(async () => {
    server = await startTestServer({ ...(await start?.()), ...env });
    user = await server.newUser();
    for (const [i, memory] of SEARCH_FIXTURE.entries()) {
      if (i === 18) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        between = new Date().toISOString();
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      const res = await user.api.post("/api/v1/memory", memory);
      expect(res.status).toBe(201);
      ids.set(memory.content, res.body.id);
    }
  });
  afterAll(async () => {
    await server?.close();
    await stop?.();
  });

  it(`runs on ${kind}`, () => {
    expect(server.app.services.index.kind).toBe(kind);
  });

  it("ranks first the memory that shares the query's wording", async () => {
    const cases = [
      ["when is the violin recital?", "My daughter's violin recital is on the third Saturday of March"],
      ["what tea do I drink", "I prefer green tea without sugar in the morning"],
      ["peanut allergy", "Allergic to peanuts and tree nuts, carry an epinephrine pen"],
      ["cherry blossom trip", "Planning a trip to Kyoto during cherry blossom season"],
      ["sourdough starter", "Keeps a sourdough starter named Bubbles in the fridge"],
    ];
    for (const [query, expected] of cases) {
      const [first] = await search(query!);
      expect(first?.content, query).toBe(expected);
    }
  });

  it("returns scores from -1 to 1, highest first, and the memory's fields", async () => {
    const hits = await search("allergic to medication", "&limit=20");
    expect(hits.length).toBe(20);
    for (let i = 0; i < hits.length; i++) {
      expect(hits[i]!.score).toBeGreaterThanOrEqual(-1);
      expect(hits[i]!.score).toBeLessThanOrEqual(1.000001);
      if (i > 0) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    }
    expect(hits[0]).toMatchObject({ id: expect.any(String), type: expect.any(String), tags: expect.any(Array) });
  });

  it("returns 10 results by default, at most `limit`, and everything when there are fewer", async () => {
    expect(await search("family")).toHaveLength(10);
    expect(await search("family", "&limit=3")).toHaveLength(3);
    expect(await search("family", "&limit=100")).toHaveLength(SEARCH_FIXTURE.length);
  });

  it("filters by type", async () => {
    const hits = await search("health", "&type=task&limit=100");
    expect(hits.length).toBe(SEARCH_FIXTURE.filter((m) => m.type === "task").length);
    expect(hits.every((h) => h.type === "task")).toBe(true);
  });

  it("filters by tags, keeping memories that carry every listed tag", async () => {
    const hits = await search("family", "&tags=family,calendar&limit=100");
    expect(hits.map((h) => h.content)).toEqual(["Mother's birthday is the ninth of October, likes orchids"]);
    expect((await search("health", "&tags=health&limit=100")).length).toBe(
      SEARCH_FIXTURE.filter((m) => m.tags.includes("health")).length,
    );
  });

  it("filters by creation date", async () => {
    const after = await search("the", `&from_date=${between}&limit=100`);
    const before = await search("the", `&to_date=${between}&limit=100`);
    expect(after.length).toBe(SEARCH_FIXTURE.length - 18);
    expect(before.length).toBe(18);
    expect(after.map((h) => h.id).some((id) => before.map((b) => b.id).includes(id))).toBe(false);
  });

  it("leaves archived memories out", async () => {
    const target = ids.get("Photographs birds with a 400mm telephoto lens")!;
    expect((await search("telephoto lens birds"))[0]?.id).toBe(target);
    await user.api.patch(`/api/v1/memories/${target}`, { is_archived: true });
    expect((await search("telephoto lens birds", "&limit=100")).map((h) => h.id)).not.toContain(target);
    await user.api.patch(`/api/v1/memories/${target}`, { is_archived: false });
    expect((await search("telephoto lens birds"))[0]?.id).toBe(target);
  });

  it("never shows one user's memories to another", async () => {
    const other = await server.newUser();
    const res = await other.api.get("/api/v1/memory/search?query=violin%20recital&limit=100");
    expect(res.body).toEqual({ results: [], total: 0 });
    await other.api.post("/api/v1/memory", { content: "my own violin lessons on Tuesday" });
    const mine = await other.api.get("/api/v1/memory/search?query=violin%20recital&limit=100");
    expect(mine.body.results.map((h: Hit) => h.content)).toEqual(["my own violin lessons on Tuesday"]);
  });

  it("finds a memory by its new content after PATCH, and not by the old", async () => {
    const id = ids.get("Favourite board game is Carcassonne with the expansions")!;
    await user.api.patch(`/api/v1/memories/${id}`, { content: "Favourite card game is bridge with the neighbours" });
    expect((await search("bridge card game neighbours"))[0]?.id).toBe(id);
    expect((await search("Carcassonne expansions"))[0]?.id).not.toBe(id);
  });

  it("follows a change of tags without a change of content", async () => {
    const id = ids.get("Prefers aisle seats on long flights")!;
    await user.api.patch(`/api/v1/memories/${id}`, { tags: ["travel", "comfort"] });
    expect((await search("aisle seats", "&tags=comfort")).map((h) => h.id)).toEqual([id]);
  });

  it("forgets a deleted memory", async () => {
    const id = ids.get("Migraine triggered by red wine and poor sleep")!;
    expect((await search("migraine red wine"))[0]?.id).toBe(id);
    await user.api.delete(`/api/v1/memories/${id}`);
    expect((await search("migraine red wine", "&limit=100")).map((h) => h.id)).not.toContain(id);
  });

  it("is the same search over GraphQL, with the memory behind each hit", async () => {
    const res = await user.api.graphql(
      `query ($q: String!) { searchMemories(query: $q, limit: 2, filter: { tags: ["music"] }) {
         total results { id content type score memory { tags createdAt } } } }`,
      { q: "violin recital" },
    );
    const found = res.body.data.searchMemories;
    expect(found.total).toBe(2);
    expect(found.results[0]).toMatchObject({
      content: "My daughter's violin recital is on the third Saturday of March",
      type: "task",
      memory: { tags: ["family", "music"] },
    });
  });

  it("scores by meaning as well the memories its words find beyond the index's nearest 100 (usearch: in the index's thread)", async () => {
    const reader = await server.newUser();
    const things = ["a lawnmower", "two bicycles", "the winter tyres", "paint tins", "a ladder", "garden chairs", "a kayak", "seed trays"];
    const notes = Array.from({ length: 160 }, (_, i) => ({ content: `note ${i}: the shed holds ${things[i % things.length]} since spring ${2000 + i}` }));
    for (const part of [notes.slice(0, 80), notes.slice(80)]) expect((await reader.api.post("/api/v1/memory/batch", part)).status).toBe(200);
    const sql = vi.spyOn(server.app.db.sql, "query");
    try {
      const res = await reader.api.get("/api/v1/memory/search?query=shed%20bicycles&limit=100");
      expect(res.status).toBe(200);
      const { embedder } = server.app.services;
      const [query] = await embedder.embed(["shed bicycles"]);
      const vectors = await embedder.embed(res.body.results.map((hit: Hit) => hit.content));
      // blended score = 0.3 × words + 0.7 × cosine: every hit carries its cosine's share, however it was found
      res.body.results.forEach((hit: Hit, i: number) => expect(hit.score).toBeGreaterThanOrEqual(0.7 * Math.max(0, cosine(query!, vectors[i]!)) - 0.01));
      const vectorReads = sql.mock.calls.filter(([text]) => String(text).startsWith("SELECT id, embedding FROM memories")).length;
      expect(vectorReads).toBe(kind === "usearch" ? 0 : 1);
    } finally {
      sql.mockRestore();
    }
  });

  it("rebuilds an emptied index from the database", async () => {
    const { indexer, index, embedder } = server.app.services;
    const nearest = async () => index.search(embedder.id, (await embedder.embed(["violin recital"]))[0]!, { userId: user.userId }, 5);
    const before = await nearest();
    expect(before).not.toEqual([]);
    await index.clear(embedder.id);
    // the exact scan reads the vectors stored with the memories: it has nothing of its own to empty
    expect(await nearest()).toEqual(kind === "exact" ? before : []);
    const progress = await indexer.rebuild();
    expect((await nearest()).length).toBeGreaterThan(0);
    expect(progress.done).toBe(progress.total);
    expect(progress.embedded).toBe(0); // stored vectors are reused, not made again
    expect((await search("when is the violin recital?"))[0]?.content).toBe(
      "My daughter's violin recital is on the third Saturday of March",
    );
  });
}));

describe.skipIf(databaseUnavailable())("search input", () => {
  const suite = serverWithUser();

  it.each([
    ["no query", "", /^query is required/],
    ["an empty query", "?query=", /^query must not be empty/],
    ["a blank query", "?query=%20%20", /^query must not be empty/],
    ["a limit over 100", "?query=x&limit=101", /^limit must be a whole number from 1 to 100/],
    ["a limit of 0", "?query=x&limit=0", /^limit must be a whole number from 1 to 100/],
    ["a from_date that is not a date", "?query=x&from_date=yesterday", /^from_date must be an ISO 8601 timestamp/],
    ["a to_date that is not a date", "?query=x&to_date=2024-13-45T00:00:00Z", /^to_date must be an ISO 8601 timestamp/],
    ["from_date after to_date", "?query=x&from_date=2025-02-01T00:00:00Z&to_date=2025-01-01T00:00:00Z", /^from_date must not be after the end/],
    ["an unknown parameter", "?query=x&sort=asc", /^sort is not a query parameter/],
    ["a date given in the filter and alone", `?query=x&from_date=2026-01-01&filter=${encodeURIComponent('{"from_date":"2025-01-01"}')}`, /^filter names from_date, which is also given/],
    ["a metadata value the database cannot hold", `?query=x&filter=${encodeURIComponent('{"metadata":[{"path":"s","in":["\\u0000"]}]}')}`, /^metadata\[0\]\.in\[0\] must not contain NUL/],
  ])("refuses %s with 400 VALIDATION_ERROR", async (_name, query, message) => {
    const res = await suite.user.api.get(`/api/v1/memory/search${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.message).toMatch(message);
  });
});

// On PostgreSQL a memory waits for its vector in the background (no drafts there): scored by BM25's share alone
// (0.3 at most), the only memory holding the query's word ranked below memories of a modest cosine (outside probe)
describe.skipIf(databaseUnavailable())("search, for a memory whose vector has not landed", () => {
  const suite = serverWithUser();

  it("finds it first by a word only it holds, scored by its words on the whole scale", async () => {
    const { user, server } = suite;
    const { index, embedder, db } = server.app.services;
    const fillers = Array.from({ length: 40 }, (_, i) => ({ content: `filler note about gardening and tomatoes ${i}` }));
    expect((await user.api.post("/api/v1/memory/batch", { memories: fillers })).status).toBe(200);
    const { body: pending } = await user.api.post("/api/v1/memory", { content: "I met a Xylophonistqzv at the concert" });
    // as the background would leave it before embedding it: no vector stored, none in the index
    await db.sql.query("UPDATE memories SET embedding = NULL, embedder = NULL WHERE id = $1::uuid", [pending.id]);
    await index.delete(embedder.id, [pending.id]);
    const res = await user.api.get(`/api/v1/memory/search?query=${encodeURIComponent("Xylophonistqzv concert")}`);
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ id: pending.id });
    expect(res.body.results[0].score).toBeGreaterThan(0.9);
  });
});
