import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { countingEmbedder } from "../support/counting-embedder.ts";
import { databaseUnavailable, serverWithUser, type TestUser } from "../support/server.ts";
import { BEFORE_REPLACE, CREATED_FULL_MEMORY, FULL_MEMORY, ISO, REPLACED, REPLACEMENT } from "../support/wire.ts";

describe.skipIf(databaseUnavailable())("REST memory routes", () => {
  const embedder = countingEmbedder();
  const suite = serverWithUser({}, { embedder });

  describe("POST /api/v1/memory (create)", () => {
    // a word is indexed by its first 200 characters: whole, one of 2 700 bytes or more broke the lexical index's
    // b-tree, and the write failed with 500 (a batch's other items with it)
    it("stores content holding a very long word, alone, in a batch and as an update, and finds it by that word", async () => {
      // random: a repeating word compresses within the index's limit
      const hex = randomBytes(2_000).toString("hex");
      const created = await suite.user.api.post("/api/v1/memory", { content: `dump ${hex}` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const batch = await suite.user.api.post("/api/v1/memory/batch", [{ content: "good one" }, { content: { k: randomBytes(6_000).toString("base64url").replace(/[-_]/g, "x") } }, { content: "good two" }]);
      expect(batch.status).toBe(200);
      expect(batch.body.summary).toEqual({ total: 3, successful: 3, failed: 0 });
      expect((await suite.user.api.patch(`/api/v1/memories/${created.body.id}`, { content: `again ${hex}` })).status).toBe(200);
      const found = await suite.user.api.get(`/api/v1/memory/search?query=${hex}&limit=1`);
      expect(found.body.results.map((hit: { id: string }) => hit.id)).toEqual([created.body.id]);
    });

    it("answers 201 with the memory's fields in snake_case and ok: true", async () => {
      const res = await suite.user.api.post("/api/v1/memory", FULL_MEMORY);
      expect(res.status).toBe(201);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.body).toEqual(CREATED_FULL_MEMORY);
    });

    it("needs only content; the other fields take their defaults", async () => {
      const res = await suite.user.api.post("/api/v1/memory", { content: "just text" });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ content: "just text", type: null, tags: [], metadata: {}, thread_id: null });
    });

    it("stores an object given as content and returns the same object", async () => {
      const record = { dish: "ramen", rating: 5, notes: { spicy: true, extras: ["egg", "nori"] } };
      const res = await suite.user.api.post("/api/v1/memory", { content: record, type: "observation" });
      expect(res.status).toBe(201);
      expect(res.body.content).toEqual(record);
      const fetched = await suite.user.api.get(`/api/v1/memories/${res.body.id}`);
      expect(fetched.body.content).toEqual(record);
    });

    it("keeps unicode content exactly", async () => {
      const content = "Ich mag Käse 🧀 — 日本語も話せます";
      const res = await suite.user.api.post("/api/v1/memory", { content, tags: ["ünïcödé"] });
      expect(res.status).toBe(201);
      expect((await suite.user.api.get(`/api/v1/memories/${res.body.id}`)).body).toMatchObject({ content, tags: ["ünïcödé"] });
    });
  });

  describe("GET /api/v1/memories/{id} (get)", () => {
    it("returns the memory as it was created", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", { content: "get me", tags: ["x"] })).body;
      const res = await suite.user.api.get(`/api/v1/memories/${created.id}`);
      expect(res.status).toBe(200);
      const { ok, ...memory } = created;
      expect(ok).toBe(true);
      expect(res.body).toEqual(memory);
    });

    it("answers 404 NOT_FOUND for an unknown id and for a malformed one", async () => {
      for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
        const res = await suite.user.api.get(`/api/v1/memories/${id}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { code: "NOT_FOUND", message: expect.any(String) } });
      }
    });
  });

  describe("PATCH /api/v1/memories/{id} (partial update)", () => {
    it("answers each of concurrent updates with the memory as that update left it, not as a later one did", async () => {
      const { id } = (await suite.user.api.post("/api/v1/memory", { content: "raced" })).body;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => suite.user.api.patch(`/api/v1/memories/${id}`, { content: `patched ${i}`, is_archived: i % 2 === 0 })),
      );
      answers.forEach((res, i) => {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ content: `patched ${i}`, is_archived: i % 2 === 0 });
      });
      // each its own version: the answers' updated_at are the versions' own, all different
      expect(new Set(answers.map((res) => res.body.updated_at)).size).toBe(10);
      const latest = answers.map((res) => res.body).sort((a, b) => a.updated_at.localeCompare(b.updated_at)).at(-1);
      expect((await suite.user.api.get(`/api/v1/memories/${id}`)).body).toEqual(latest);
    });

    it("changes what is sent and keeps what is not", async () => {
      const created = (
        await suite.user.api.post("/api/v1/memory", { content: "old", type: "task", tags: ["a"], metadata: { k: 1 } })
      ).body;
      const res = await suite.user.api.patch(`/api/v1/memories/${created.id}`, { content: "new" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, content: "new", type: "task", tags: ["a"], metadata: { k: 1 } });
      expect(res.body.created_at).toBe(created.created_at);
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    });

    it("clears a field sent as null", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", { content: "c", type: "task", tags: ["a"] })).body;
      const res = await suite.user.api.patch(`/api/v1/memories/${created.id}`, { type: null, tags: null });
      expect(res.body).toMatchObject({ content: "c", type: null, tags: [] });
    });

    it("archives and un-archives a memory", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", { content: "archive me" })).body;
      const archived = await suite.user.api.patch(`/api/v1/memories/${created.id}`, { is_archived: true });
      expect(archived.body.is_archived).toBe(true);
      const restored = await suite.user.api.patch(`/api/v1/memories/${created.id}`, { is_archived: false });
      expect(restored.body.is_archived).toBe(false);
    });

    it("re-embeds on a content change, and not on a type, tags, metadata or archive change", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", { content: "embedded once", type: "task" })).body;
      const calls = embedder.calls.length;
      for (const change of [{ type: "note" }, { tags: ["t"] }, { metadata: { k: 2 } }, { is_archived: true }, { is_archived: false }]) {
        expect((await suite.user.api.patch(`/api/v1/memories/${created.id}`, change)).status).toBe(200);
      }
      expect(embedder.calls.length).toBe(calls);
      expect((await suite.user.api.patch(`/api/v1/memories/${created.id}`, { content: "embedded twice" })).status).toBe(200);
      expect(embedder.calls.slice(calls)).toEqual([1]);
    });

    it("answers 404 for an unknown id", async () => {
      const res = await suite.user.api.patch("/api/v1/memories/00000000-0000-4000-8000-000000000000", { content: "x" });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    });
  });

  describe("PUT /api/v1/memories/{id} (full replace)", () => {
    it("replaces every writable field; what is left out goes back to its default", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", BEFORE_REPLACE)).body;
      const res = await suite.user.api.put(`/api/v1/memories/${created.id}`, REPLACEMENT);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, ...REPLACED });
    });

    it("accepts a memory sent back as fetched (read-only fields are ignored)", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", { content: "round trip", tags: ["t"] })).body;
      const fetched = (await suite.user.api.get(`/api/v1/memories/${created.id}`)).body;
      const res = await suite.user.api.put(`/api/v1/memories/${created.id}`, { ...fetched, content: "round trip 2" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ content: "round trip 2", tags: ["t"] });
      // another memory's body sent to this one's path is a mistake, on PUT and PATCH, and on a thread's PATCH
      const other = (await suite.user.api.post("/api/v1/memory", { content: "another" })).body;
      const thread = (await suite.user.api.post("/api/v1/threads", { title: "one" })).body;
      for (const [path, body] of [
        [`/api/v1/memories/${created.id}`, { ...other, content: "mixed up" }],
        [`/api/v1/threads/${thread.id}`, { id: other.id, title: "mixed up" }],
      ] as const) {
        const method = path.includes("threads") ? ["patch"] as const : ["put", "patch"] as const;
        for (const verb of method) {
          const mixed = await suite.user.api[verb](path, body);
          expect(mixed.status).toBe(400);
          expect(mixed.body.error).toEqual({ code: "VALIDATION_ERROR", message: "id must be the id in the path, or left out: a record's id cannot be changed" });
        }
      }
      expect((await suite.user.api.get(`/api/v1/memories/${created.id}`)).body.content).toBe("round trip 2");
    });

    it("needs content", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", { content: "x" })).body;
      const res = await suite.user.api.put(`/api/v1/memories/${created.id}`, { type: "task" });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: "VALIDATION_ERROR", message: "content is required" });
    });
  });

  describe("DELETE /api/v1/memories/{id}", () => {
    it("answers {ok: true}; the memory is gone after", async () => {
      const created = (await suite.user.api.post("/api/v1/memory", { content: "delete me" })).body;
      const res = await suite.user.api.delete(`/api/v1/memories/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect((await suite.user.api.get(`/api/v1/memories/${created.id}`)).status).toBe(404);
      expect((await suite.user.api.delete(`/api/v1/memories/${created.id}`)).status).toBe(404);
    });
  });

  describe("GET /api/v1/memory (list)", () => {
    let lister: TestUser;
    const created: { id: string; content: string }[] = [];

    beforeAll(async () => {
      lister = await suite.server.newUser();
      // 25 memories, oldest first: i % 3 decides the type, i % 2 the tags, every fifth is archived
      for (let i = 0; i < 25; i++) {
        const res = await lister.api.post("/api/v1/memory", {
          content: `memory ${i}`,
          type: ["preference", "task", "journal"][i % 3],
          tags: i % 2 === 0 ? ["even", "all"] : ["odd", "all"],
        });
        if (i % 5 === 0) await lister.api.patch(`/api/v1/memories/${res.body.id}`, { is_archived: true });
        created.push(res.body);
      }
    });

    it("defaults to 20 items, newest first, with total, limit, offset and has_more", async () => {
      const res = await lister.api.get("/api/v1/memory");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 25, limit: 20, offset: 0, has_more: true });
      expect(res.body.memories).toHaveLength(20);
      expect(res.body.memories.map((m: { content: string }) => m.content)).toEqual(
        created.slice(5).reverse().map((m) => m.content),
      );
    });

    it("pages with limit and offset; has_more is false exactly at the end", async () => {
      const page = (offset: number, limit: number) => lister.api.get(`/api/v1/memory?limit=${limit}&offset=${offset}`);
      expect((await page(0, 10)).body).toMatchObject({ has_more: true, offset: 0, limit: 10 });
      expect((await page(15, 10)).body).toMatchObject({ has_more: false });
      expect((await page(15, 10)).body.memories).toHaveLength(10);
      expect((await page(14, 10)).body.has_more).toBe(true);
      const past = (await page(25, 10)).body;
      expect(past).toMatchObject({ memories: [], total: 25, has_more: false });
      expect((await page(0, 100)).body.memories).toHaveLength(25);
    });

    it("filters by type", async () => {
      const res = await lister.api.get("/api/v1/memory?type=task&limit=100");
      expect(res.body.total).toBe(8);
      expect(res.body.memories.every((m: { type: string }) => m.type === "task")).toBe(true);
    });

    it("filters by tags, matching memories that carry every listed tag", async () => {
      expect((await lister.api.get("/api/v1/memory?tags=even")).body.total).toBe(13);
      expect((await lister.api.get("/api/v1/memory?tags=even,all")).body.total).toBe(13);
      expect((await lister.api.get("/api/v1/memory?tags=even,odd")).body.total).toBe(0);
    });

    it("filters by is_archived: true only archived, false only live, absent both", async () => {
      expect((await lister.api.get("/api/v1/memory?is_archived=true")).body.total).toBe(5);
      expect((await lister.api.get("/api/v1/memory?is_archived=false")).body.total).toBe(20);
      expect((await lister.api.get("/api/v1/memory")).body.total).toBe(25);
    });

    it("combines filters", async () => {
      const res = await lister.api.get("/api/v1/memory?type=preference&tags=even&is_archived=false");
      // i in 0..24 with i % 3 == 0, i even, i % 5 != 0: 6, 12, 18, 24
      expect(res.body.total).toBe(4);
    });

    it("reports totals that follow every kind of write at once", async () => {
      const writer = await suite.server.newUser();
      const total = async (query = "") => (await writer.api.get(`/api/v1/memory${query}`)).body.total;
      expect(await total()).toBe(0);
      const a = (await writer.api.post("/api/v1/memory", { content: "a", type: "task" })).body;
      expect(await total()).toBe(1);
      expect(await total("?type=task")).toBe(1);
      await writer.api.patch(`/api/v1/memories/${a.id}`, { type: "journal" });
      expect(await total("?type=task")).toBe(0);
      await writer.api.put(`/api/v1/memories/${a.id}`, { content: "a", type: "task" });
      expect(await total("?type=task")).toBe(1);
      await writer.api.patch(`/api/v1/memories/${a.id}`, { is_archived: true });
      expect(await total("?is_archived=false")).toBe(0);
      await writer.api.delete(`/api/v1/memories/${a.id}`);
      expect(await total()).toBe(0);
    });

    it("answers an unexpected failure 500 INTERNAL, revealing nothing of it", async () => {
      const { memories } = suite.server.app.services;
      const list = memories.list;
      memories.list = () => Promise.reject(new Error("secret connection string postgres://admin:pw@db"));
      try {
        const res = await suite.user.api.get("/api/v1/memory");
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: { code: "INTERNAL", message: expect.any(String) } });
        expect(res.text).not.toMatch(/secret|postgres|admin/);
      } finally {
        memories.list = list;
      }
    });

    it("rejects a limit over 100, under 1, or not a number", async () => {
      for (const limit of ["101", "0", "-1", "ten"]) {
        const res = await lister.api.get(`/api/v1/memory?limit=${limit}`);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_ERROR");
        expect(res.body.error.message).toMatch(/^limit /);
      }
    });
  });
});
