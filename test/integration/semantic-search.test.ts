import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenize } from "../../src/text/tokenize.ts";
import { DISTRACTORS, PARAPHRASES } from "../fixtures/paraphrases.ts";
import { databaseUnavailable, persistentDatabase, startTestServer, type TestServer, type TestUser } from "../support/server.ts";
import { vectorsLanded } from "../support/vectors.ts";

// The default configuration: EMBEDDER=auto is the offline sentence encoder when no OpenAI endpoint is set.
const DEFAULT = { EMBEDDER: "auto" } as const;
// the sentence encoder's threads run at nice 10, behind everything else (encoder-worker.mjs): under the suite's
// other files on two cores, the model's load and the background embedding once took over the 60 s a hook gets
// (about 7 s otherwise)
const BACKGROUND_EMBEDDING_MS = 240_000;

const rankOf = async (user: TestUser, query: string, id: string, params = ""): Promise<number> => {
  const res = await user.api.get(`/api/v1/memory/search?query=${encodeURIComponent(query)}&limit=10${params}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results.findIndex((hit: { id: string }) => hit.id === id);
};

describe.skipIf(databaseUnavailable())("search by meaning with the default embedder", () => {
  let server: TestServer;
  let user: TestUser;
  const ids: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(DEFAULT);
    user = await server.newUser();
    const memories = [...PARAPHRASES.map((pair) => pair.memory), ...DISTRACTORS];
    const created = await user.api.post("/api/v1/memory/batch", memories.map((content) => ({ content })));
    expect(created.status).toBe(200);
    ids.push(...created.body.results.map((result: { id: string }) => result.id));
    await vectorsLanded(server.app.db);
  }, BACKGROUND_EMBEDDING_MS);
  afterAll(() => server?.close());

  it("keeps the fixture's rule: no question shares a term with its memory", () => {
    for (const { memory, question } of PARAPHRASES) {
      const shared = tokenize(question).filter((term) => tokenize(memory).includes(term));
      expect(shared, question).toEqual([]);
    }
  });

  it("ranks the memory a paraphrased question means first for at least 70%, in the top 3 for at least 85%", async () => {
    const ranks = await Promise.all(PARAPHRASES.map(({ question }, i) => rankOf(user, question, ids[i]!)));
    const first = ranks.filter((rank) => rank === 0).length;
    const top3 = ranks.filter((rank) => rank >= 0 && rank < 3).length;
    expect(first, `ranks: ${ranks.join(" ")}`).toBeGreaterThanOrEqual(Math.ceil(0.7 * PARAPHRASES.length));
    expect(top3, `ranks: ${ranks.join(" ")}`).toBeGreaterThanOrEqual(Math.ceil(0.85 * PARAPHRASES.length));
  });

  it("stores vectors of the sentence encoder", async () => {
    const rows = await server.app.db.sql.query<{ embedder: string }>("SELECT DISTINCT embedder FROM memories");
    expect(rows).toEqual([{ embedder: server.app.services.embedder.id }]);
    expect(server.app.services.embedder.id).toMatch(/^use-lite@.*:512$/);
  });

  it("acknowledges a write before its vector lands, finds it by its words at once, and by meaning once embedded", async () => {
    const created = await user.api.post("/api/v1/memory", { content: "My passport expires in October 2027" });
    expect(created.status).toBe(201);
    expect(await rankOf(user, "passport", created.body.id)).toBe(0);
    await vectorsLanded(server.app.db);
    expect(await rankOf(user, "when does my travel document run out?", created.body.id)).toBe(0);
  });

  it("finds a memory by meaning again after its content changed, not by its old meaning", async () => {
    const created = await user.api.post("/api/v1/memory", { content: "I play the cello in a community orchestra" });
    await vectorsLanded(server.app.db);
    await user.api.patch(`/api/v1/memories/${created.body.id}`, { content: "I collect vintage fountain pens from the 1950s" });
    await vectorsLanded(server.app.db);
    expect(await rankOf(user, "what old writing tools do I hoard?", created.body.id)).toBe(0);
    expect(await rankOf(user, "which musical instrument do I play?", created.body.id)).not.toBe(0);
  });
});

describe.skipIf(databaseUnavailable())("a change of embedder", () => {
  let database: Awaited<ReturnType<typeof persistentDatabase>>;
  beforeAll(async () => {
    database = await persistentDatabase();
  });
  afterAll(() => database?.drop());

  it("re-embeds memories of the hashed embedder in the background, and search answers meanwhile", async () => {
    const first = await startTestServer({ ...database.env, EMBEDDER: "hash" });
    const handle = "switch@example.com";
    const user = await first.newUser(handle);
    const pair = PARAPHRASES[0]!;
    const created = await user.api.post("/api/v1/memory/batch", [pair.memory, ...DISTRACTORS].map((content) => ({ content })));
    const id: string = created.body.results[0].id;
    const hashId = first.app.services.embedder.id;
    await first.app.close();

    const second = await startTestServer({ ...database.env, ...DEFAULT });
    try {
      const api = second.client(user.key);
      const during = await api.get(`/api/v1/memory/search?query=${encodeURIComponent("Biscuit")}`);
      expect(during.status).toBe(200);
      expect(during.body.results[0]?.id).toBe(id);
      await vectorsLanded(second.app.db);
      const embedders = await second.app.db.sql.query<{ embedder: string }>("SELECT DISTINCT embedder FROM memories");
      expect(embedders).toEqual([{ embedder: second.app.services.embedder.id }]);
      expect(second.app.services.embedder.id).not.toBe(hashId);
      expect(await rankOf({ api } as TestUser, pair.question, id)).toBe(0);
    } finally {
      await second.app.close();
    }
  }, BACKGROUND_EMBEDDING_MS);
});
