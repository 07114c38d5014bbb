import { beforeAll, describe, expect, it } from "vitest";
import { countingEmbedder } from "../support/counting-embedder.ts";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

interface Hit {
  id: string;
  content: string;
  relevance: number;
}

describe.skipIf(databaseUnavailable())("recall", () => {
  const embedder = countingEmbedder();
  const suite = serverWithUser({}, { embedder });

  const recall = async (body: Record<string, unknown>, who = suite.user) => {
    const res = await who.api.post("/api/v1/memory/recall", body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.total).toBe(res.body.results.length);
    return res.body as { results: Hit[]; total: number; query_type: string };
  };

  beforeAll(async () => {
    await suite.user.api.post("/api/v1/memory/batch", [
      { content: "Loves spicy Sichuan food", type: "preference" },
      { content: "Prefers window seats on trains", type: "preference" },
      { content: "Enjoys jazz, especially Coltrane", type: "preference" },
      { content: "Went to the dentist on Friday", type: "journal" },
      { content: "The car insurance renews in May", type: "task" },
    ]);
  });

  describe("the profile path", () => {
    it.each(["What do I like?", "what are my preferences", "What should you know about me?", "tell me about myself"])(
      "answers %j from preference memories, without a vector search",
      async (query) => {
        const before = embedder.calls.length;
        const found = await recall({ query });
        expect(found.query_type).toBe("profile");
        expect(found.results.map((r) => r.content).sort()).toEqual([
          "Enjoys jazz, especially Coltrane",
          "Loves spicy Sichuan food",
          "Prefers window seats on trains",
        ]);
        expect(found.results.every((r) => r.relevance === 1)).toBe(true);
        expect(embedder.calls.length).toBe(before);
      },
    );

    it("puts first the preferences about the topic a profile question names", async () => {
      const found = await recall({ query: "what food do I like?" });
      expect(found.query_type).toBe("profile");
      expect(found.results[0]?.content).toBe("Loves spicy Sichuan food");
      // the other preferences still answer it, after; nothing that is not a preference does
      expect(found.results.slice(1).map((r) => r.content).sort()).toEqual([
        "Enjoys jazz, especially Coltrane",
        "Prefers window seats on trains",
      ]);
      expect(found.results[0]!.relevance).toBeGreaterThan(found.results[1]!.relevance);
    });

    it("is not taken for questions about someone else", async () => {
      expect((await recall({ query: "what does my brother like?" })).query_type).not.toBe("profile");
    });

    it.each(["What's my favorite food?", "What is my favourite food?", "Which food do I like?", "what are my favorite foods"])(
      "takes %j for a question about the user",
      async (query) => {
        const found = await recall({ query });
        expect(found.query_type).toBe("profile");
        expect(found.results[0]?.content).toBe("Loves spicy Sichuan food");
      },
    );

    it("keeps to the thread given: its preferences, or the thread path when it has none (or is not the caller's)", async () => {
      const who = await suite.server.newUser();
      const thread = (await who.api.post("/api/v1/threads", { title: "Trip" })).body;
      const empty = (await who.api.post("/api/v1/threads", { title: "Empty" })).body;
      await who.api.post("/api/v1/memory", { content: "Likes aisle seats on planes", type: "preference", thread_id: thread.id });
      await who.api.post("/api/v1/memory", { content: "Likes green tea", type: "preference" });
      const inThread = await recall({ query: "what do I like?", thread_id: thread.id }, who);
      expect(inThread.query_type).toBe("profile");
      expect(inThread.results.map((r) => r.content)).toEqual(["Likes aisle seats on planes"]);
      const inEmpty = await recall({ query: "what do I like?", thread_id: empty.id }, who);
      expect(inEmpty).toMatchObject({ query_type: "thread", results: [] });
      // another user naming this thread gets nothing of their own preferences, as any thread-scoped read
      const foreign = await recall({ query: "what do I like?", thread_id: thread.id });
      expect(foreign).toMatchObject({ query_type: "thread", results: [] });
    });
  });

  describe("the thread path", () => {
    it("finds a word only a memory of the thread contains, and nothing outside the thread", async () => {
      const who = await suite.server.newUser();
      const thread = (await who.api.post("/api/v1/threads", { title: "Boat project" })).body;
      const other = (await who.api.post("/api/v1/threads", { title: "Other" })).body;
      const inside = (await who.api.post("/api/v1/memory", { content: "varnish the tiller twice", thread_id: thread.id })).body;
      await who.api.post("/api/v1/memory", { content: "buy new rope for the boat", thread_id: thread.id });
      await who.api.post("/api/v1/memory", { content: "varnish the garden bench", thread_id: other.id });
      await who.api.post("/api/v1/memory", { content: "varnish sample colours from the shop" });
      const found = await recall({ query: "which varnish job?", thread_id: thread.id }, who);
      expect(found.query_type).toBe("thread");
      expect(found.results[0]?.id).toBe(inside.id);
      const outside = found.results.filter((r) => r.content.includes("bench") || r.content.includes("shop"));
      expect(outside).toEqual([]);
    });
  });

  describe("the hybrid path", () => {
    it("ranks a memory with the question's rare word at the top, above many that share its common words", async () => {
      const who = await suite.server.newUser();
      const common = (n: number) =>
        `the team meeting about the project deadline moved to Monday afternoon, note ${n}`;
      await who.api.post("/api/v1/memory/batch", Array.from({ length: 25 }, (_, i) => ({ content: common(i) })));
      const target = (await who.api.post("/api/v1/memory", { content: "Kestrel sent the invoice for the project" })).body;
      const query = "what did the team say about the Kestrel project deadline on Monday?";

      const searched = (await who.api.get(`/api/v1/memory/search?query=${encodeURIComponent(query)}&limit=100`)).body.results;
      const searchRank = searched.findIndex((r: { id: string }) => r.id === target.id);
      const recalled = await recall({ query, limit: 100 }, who);
      const recallRank = recalled.results.findIndex((r) => r.id === target.id);
      expect(recalled.query_type).toBe("hybrid");
      // recall fuses ranks (RRF), so 25 memories sharing four of the question's words may edge one or two above it;
      // search blends scores, where the rare word's weight (BM25 4 times the next memory's) puts it first
      expect(recallRank).toBeGreaterThanOrEqual(0);
      expect(recallRank).toBeLessThan(3);
      expect(searchRank).toBe(0);
    });

    it("returns relevance from 0 to 1, most relevant first", async () => {
      const found = await recall({ query: "dentist on Friday", limit: 5 });
      expect(found.results[0]?.content).toBe("Went to the dentist on Friday");
      expect(found.results[0]?.relevance).toBe(1);
      for (let i = 1; i < found.results.length; i++) {
        expect(found.results[i]!.relevance).toBeGreaterThanOrEqual(0);
        expect(found.results[i]!.relevance).toBeLessThanOrEqual(found.results[i - 1]!.relevance);
      }
    });

    it("is semantic when no memory shares a word with the query", async () => {
      const found = await recall({ query: "insuranse renewel" });
      expect(found.query_type).toBe("semantic");
      expect(found.results[0]?.content).toBe("The car insurance renews in May");
    });

    it("leaves archived memories out and never crosses users", async () => {
      const who = await suite.server.newUser();
      const memory = (await who.api.post("/api/v1/memory", { content: "the locker code is 4471" })).body;
      expect((await recall({ query: "locker code" }, who)).results[0]?.id).toBe(memory.id);
      expect((await recall({ query: "locker code" })).results.map((r) => r.id)).not.toContain(memory.id);
      await who.api.patch(`/api/v1/memories/${memory.id}`, { is_archived: true });
      expect((await recall({ query: "locker code" }, who)).results).toEqual([]);
    });
  });

  it("embeds a user's repeated question once, for recall and search alike, and another user's again", async () => {
    const query = "when does the car insurance renew?";
    const before = embedder.calls.length;
    const first = await recall({ query });
    expect(embedder.calls.slice(before)).toEqual([1]);
    expect(await recall({ query })).toEqual(first);
    expect((await suite.user.api.get(`/api/v1/memory/search?query=${encodeURIComponent(query)}`)).status).toBe(200);
    expect(embedder.calls.slice(before)).toEqual([1]);
    await recall({ query }, await suite.server.newUser());
    expect(embedder.calls.slice(before)).toEqual([1, 1]);
  });

  it("is the same over GET and over GraphQL", async () => {
    const viaGet = await suite.user.api.get("/api/v1/memory/recall?query=dentist&limit=2");
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.results[0].content).toBe("Went to the dentist on Friday");
    const gql = await suite.user.api.graphql(`{ recall(query: "dentist", limit: 2) { total queryType results { content relevance memory { type } } } }`);
    const { recall } = gql.body.data;
    expect(recall).toMatchObject({ total: 2, queryType: "hybrid" });
    expect(recall.results[0]).toEqual({ content: "Went to the dentist on Friday", relevance: 1, memory: { type: "journal" } });
  });

  it.each([
    ["no query", {}, /^query is required/],
    ["an empty query", { query: "" }, /^query must not be empty/],
    ["a thread id that is not an id", { query: "x", thread_id: "abc" }, /^thread_id must be a thread id/],
    ["a limit over 100", { query: "x", limit: 500 }, /^limit must be a whole number from 1 to 100/],
    ["an unknown field", { query: "x", top_k: 3 }, /^top_k is not a field of a recall request/],
  ])("refuses %s with 400", async (_name, body, message) => {
    const res = await suite.user.api.post("/api/v1/memory/recall", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.message).toMatch(message);
  });
});
