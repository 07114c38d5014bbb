import { describe, expect, it } from "vitest";
import { DELETE_SLICE } from "../../src/domain/thread.ts";
import { databaseUnavailable, serverWithUser, type TestUser } from "../support/server.ts";
import { StatementCounter } from "../support/statement-counter.ts";
import { ISO } from "../support/wire.ts";

describe.skipIf(databaseUnavailable())("threads", () => {
  const statements = new StatementCounter();
  const suite = serverWithUser({}, { wrapPrismaAdapter: statements.wrap });

  const newThread = async (title: string, extra: Record<string, unknown> = {}) => {
    const res = await suite.user.api.post("/api/v1/threads", { title, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; title: string };
  };
  const remember = async (content: string, threadId?: string) =>
    (await suite.user.api.post("/api/v1/memory", { content, ...(threadId ? { thread_id: threadId } : {}) })).body as {
      id: string;
    };
  const searchIds = async (who: TestUser, query: string) =>
    (await who.api.get(`/api/v1/memory/search?query=${encodeURIComponent(query)}&limit=100`)).body.results.map(
      (r: { id: string }) => r.id,
    );

  describe("create (POST /api/v1/threads)", () => {
    it("answers 201 with the thread, active by default", async () => {
      const res = await suite.user.api.post("/api/v1/threads", {
        title: "Trip to Lisbon",
        description: "Planning notes",
        metadata: { budget: 1200 },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        title: "Trip to Lisbon",
        description: "Planning notes",
        metadata: { budget: 1200 },
        status: "active",
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        memory_count: 0,
      });
    });

    it("keeps a metadata key called __proto__, as memories do, created, read and updated", async () => {
      const raw = (method: "post" | "patch", path: string, text: string) =>
        suite.user.api[method](path, undefined, { raw: text, headers: { "content-type": "application/json" } });
      const ownKeys = (thread: { metadata: object }) => Object.keys(thread.metadata).sort();
      const read = async (id: string) => (await suite.user.api.get(`/api/v1/threads/${id}`)).body.thread;
      const created = await raw("post", "/api/v1/threads", '{"title":"proto","metadata":{"__proto__":{"x":1},"b":2}}');
      expect(created.status).toBe(201);
      expect(ownKeys(created.body)).toEqual(["__proto__", "b"]);
      expect(ownKeys(await read(created.body.id))).toEqual(["__proto__", "b"]);
      const updated = await raw("patch", `/api/v1/threads/${created.body.id}`, '{"metadata":{"__proto__":{"y":2}}}');
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      expect(ownKeys(updated.body)).toEqual(["__proto__"]);
      expect(ownKeys(await read(created.body.id))).toEqual(["__proto__"]);
    });

    it.each([
      ["no title", { description: "x" }, /^title is required/],
      ["an empty title", { title: "  " }, /^title must not be empty/],
      ["a title too long", { title: "t".repeat(201) }, /^title must be at most 200 characters/],
      ["metadata not an object", { title: "t", metadata: "x" }, /^metadata must be a JSON object/],
      ["an unknown field", { title: "t", colour: "red" }, /^colour is not a field of a thread/],
    ])("refuses %s with 400", async (_name, body, message) => {
      const res = await suite.user.api.post("/api/v1/threads", body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.message).toMatch(message);
    });
  });

  describe("list (GET /api/v1/threads)", () => {
    it("pages newest first and filters by status", async () => {
      const lister = await suite.server.newUser();
      for (let i = 0; i < 5; i++) {
        const created = await lister.api.post("/api/v1/threads", { title: `t${i}` });
        if (i % 2 === 0) await lister.api.patch(`/api/v1/threads/${created.body.id}`, { status: "completed" });
      }
      const all = await lister.api.get("/api/v1/threads?limit=2");
      expect(all.body).toMatchObject({ total: 5, limit: 2, offset: 0, has_more: true });
      expect(all.body.threads.map((t: { title: string }) => t.title)).toEqual(["t4", "t3"]);
      expect((await lister.api.get("/api/v1/threads?limit=2&offset=3")).body.has_more).toBe(false);
      const completed = await lister.api.get("/api/v1/threads?status=completed");
      expect(completed.body.threads.map((t: { title: string }) => t.title)).toEqual(["t4", "t2", "t0"]);
      expect((await lister.api.get("/api/v1/threads?status=active")).body.total).toBe(2);
    });

    it("refuses an unknown status", async () => {
      const res = await suite.user.api.get("/api/v1/threads?status=paused");
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("status must be one of active, archived, completed");
    });
  });

  describe("get (GET /api/v1/threads/{id})", () => {
    it("returns {thread}, with its memories only when include_memories is true, at most `limit` of them", async () => {
      const thread = await newThread("Reading list");
      for (const book of ["Dune", "Emma", "Ulysses"]) await remember(`wants to read ${book}`, thread.id);
      const bare = await suite.user.api.get(`/api/v1/threads/${thread.id}`);
      expect(bare.status).toBe(200);
      expect(bare.body.thread).toMatchObject({ id: thread.id, title: "Reading list", memory_count: 3 });
      expect(bare.body.thread.memories).toBeUndefined();

      const full = await suite.user.api.get(`/api/v1/threads/${thread.id}?include_memories=true&limit=2`);
      expect(full.body.thread.memories.map((m: { content: string }) => m.content)).toEqual([
        "wants to read Ulysses",
        "wants to read Emma",
      ]);
      expect(full.body.thread.memories[0].thread_id).toBe(thread.id);
    });

    it("answers 404 for an unknown or malformed id", async () => {
      for (const id of ["00000000-0000-4000-8000-000000000000", "nope"]) {
        const res = await suite.user.api.get(`/api/v1/threads/${id}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
      }
    });
  });

  describe("a thread's memories in the memory list (GET /api/v1/memory?thread_id=)", () => {
    it("lists that thread's memories only, with their total", async () => {
      const thread = await newThread("Garden plans");
      const other = await newThread("Car repairs");
      const inThread = [await remember("plant garlic in October", thread.id), await remember("net the strawberries", thread.id)];
      await remember("check the brake pads", other.id);
      await remember("no thread at all");
      const res = await suite.user.api.get(`/api/v1/memory?thread_id=${thread.id}`);
      expect(res.status).toBe(200);
      expect(res.body.memories.map((m: { id: string }) => m.id).sort()).toEqual(inThread.map((m) => m.id).sort());
      expect(res.body.memories.every((m: { thread_id: string }) => m.thread_id === thread.id)).toBe(true);
      expect(res.body.total).toBe(2);
    });
  });

  describe("update (PATCH /api/v1/threads/{id})", () => {
    it("changes title, description, metadata and status; keeps what is not sent", async () => {
      const thread = await newThread("Draft", { description: "first", metadata: { a: 1 } });
      const res = await suite.user.api.patch(`/api/v1/threads/${thread.id}`, { title: "Final", status: "archived" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: "Final", description: "first", metadata: { a: 1 }, status: "archived" });
      const cleared = await suite.user.api.patch(`/api/v1/threads/${thread.id}`, { description: null, metadata: { b: 2 } });
      expect(cleared.body).toMatchObject({ description: null, metadata: { b: 2 } });
    });

    it("answers each of concurrent updates with the thread as that update left it", async () => {
      const thread = await newThread("Raced");
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => suite.user.api.patch(`/api/v1/threads/${thread.id}`, { title: `title ${i}` })));
      answers.forEach((res, i) => expect(res.body).toMatchObject({ id: thread.id, title: `title ${i}`, memory_count: 0 }));
      expect(new Set(answers.map((res) => res.body.updated_at)).size).toBe(8);
    });

    it("answers a PATCH that sends nothing (or only read-only fields) with the thread as it was", async () => {
      const created = await suite.user.api.post("/api/v1/threads", { title: "unchanged" });
      for (const body of [{}, { memory_count: 5 }]) {
        const res = await suite.user.api.patch(`/api/v1/threads/${created.body.id}`, body);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: created.body.id, title: "unchanged", updated_at: created.body.updated_at });
      }
      const graphql = await suite.user.api.graphql(`mutation($id: ID!) { updateThread(id: $id, input: {}) { title } }`, { id: created.body.id });
      expect(graphql.body.data?.updateThread.title).toBe("unchanged");
      // another user's thread stays a 404, with or without changes
      const other = await suite.server.newUser();
      expect((await other.api.patch(`/api/v1/threads/${created.body.id}`, {})).status).toBe(404);
    });

    it("refuses any status but active, archived and completed", async () => {
      const thread = await newThread("Status check");
      const res = await suite.user.api.patch(`/api/v1/threads/${thread.id}`, { status: "deleted" });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("status must be one of active, archived, completed");
    });
  });

  describe("delete (DELETE /api/v1/threads/{id})", () => {
    it("by default keeps the memories, without their thread_id, and the index follows", async () => {
      const thread = await newThread("Kitchen renovation");
      const memory = await remember("chose walnut cabinets for the kitchen", thread.id);
      const res = await suite.user.api.delete(`/api/v1/threads/${thread.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect((await suite.user.api.get(`/api/v1/threads/${thread.id}`)).status).toBe(404);
      const kept = await suite.user.api.get(`/api/v1/memories/${memory.id}`);
      expect(kept.body).toMatchObject({ content: "chose walnut cabinets for the kitchen", thread_id: null });
      expect(await searchIds(suite.user, "walnut cabinets kitchen")).toContain(memory.id);
      const recalled = await suite.user.api.get(`/api/v1/memory/recall?query=walnut&thread_id=${thread.id}`);
      expect(recalled.body.results).toEqual([]);
    });

    it("with delete_memories=true deletes the memories too, from the index as well", async () => {
      const thread = await newThread("Garden plans");
      const a = await remember("plant garlic in October", thread.id);
      const b = await remember("the hedge needs trimming in May", thread.id);
      const outside = await remember("garlic bread recipe from grandma");
      await suite.user.api.delete(`/api/v1/threads/${thread.id}?delete_memories=true`);
      for (const gone of [a, b]) expect((await suite.user.api.get(`/api/v1/memories/${gone.id}`)).status).toBe(404);
      const found = await searchIds(suite.user, "garlic");
      expect(found).toContain(outside.id);
      expect(found).not.toContain(a.id);
      expect((await suite.user.api.get(`/api/v1/memories/${outside.id}`)).status).toBe(200);
    });

    // one transaction held the embedded database for a minute at 100 000 memories (outside probe): now a slice at a time
    it.each([true, false])("with delete_memories=%s, takes every memory of a thread larger than a slice, each event before the thread's", async (deleteMemories) => {
      const who = await suite.server.newUser();
      const thread = (await who.api.post("/api/v1/threads", { title: "large" })).body.id as string;
      const count = 2 * DELETE_SLICE + 100;
      for (let i = 0; i < count; i += 100) {
        const batch = Array.from({ length: Math.min(100, count - i) }, (_, j) => ({ content: `slice memory ${i + j}`, thread_id: thread }));
        expect((await who.api.post("/api/v1/memory/batch", batch)).body.summary.successful).toBe(batch.length);
      }
      const feed = suite.server.app.services.events.subscribe(who.userId)[Symbol.asyncIterator]();
      const heard: string[] = [];
      const hearing = (async () => {
        for (let next = await feed.next(); !next.done; next = await feed.next()) {
          if (!next.value.type.endsWith(".created")) heard.push(next.value.type); // the batches' may still be on their way
          if (next.value.type === "thread.deleted") return;
        }
      })();
      expect((await who.api.delete(`/api/v1/threads/${thread}?delete_memories=${deleteMemories}`)).status).toBe(200);
      await hearing;
      await feed.return?.();
      expect(heard).toEqual([...Array.from({ length: count }, () => (deleteMemories ? "memory.deleted" : "memory.updated")), "thread.deleted"]);
      expect((await who.api.get("/api/v1/memory?limit=1")).body.total).toBe(deleteMemories ? 0 : count);
      expect((await who.api.get(`/api/v1/threads/${thread}`)).status).toBe(404);
      // each slice's index work applied before the answer (the last slice's was left to the background loop once)
      const [{ queued }] = (await suite.server.app.services.db.sql.query<{ queued: number }>(
        "SELECT count(*)::int AS queued FROM index_tasks WHERE user_id = $1::uuid",
        [who.userId],
      )) as [{ queued: number }];
      expect(queued).toBe(0);
      // a transaction a slice: the versions they wrote name three transactions (xmin)
      const [{ transactions }] = (await suite.server.app.services.db.sql.query<{ transactions: number }>(
        "SELECT count(DISTINCT xmin::text)::int AS transactions FROM memory_versions WHERE user_id = $1::uuid AND action = $2",
        [who.userId, deleteMemories ? "deleted" : "updated"],
      )) as [{ transactions: number }];
      expect(transactions).toBe(3);
    }, 60_000);

    it("answers 404 for an unknown thread", async () => {
      const res = await suite.user.api.delete("/api/v1/threads/00000000-0000-4000-8000-000000000000");
      expect(res.status).toBe(404);
    });
  });

  describe("scoping", () => {
    it("keeps each user's threads to themselves", async () => {
      const thread = await newThread("Private plans");
      const other = await suite.server.newUser();
      expect((await other.api.get(`/api/v1/threads/${thread.id}`)).status).toBe(404);
      expect((await other.api.patch(`/api/v1/threads/${thread.id}`, { title: "x" })).status).toBe(404);
      expect((await other.api.delete(`/api/v1/threads/${thread.id}`)).status).toBe(404);
      expect((await other.api.get("/api/v1/threads")).body.total).toBe(0);
      const res = await other.api.post("/api/v1/memory", { content: "sneaky", thread_id: thread.id });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("thread_id does not name one of your threads");
      const gql = await other.api.graphql(`query ($id: ID!) { thread(id: $id) { id } }`, { id: thread.id });
      expect(gql.body).toEqual({ data: { thread: null } });
      expect((await suite.user.api.get(`/api/v1/threads/${thread.id}`)).body.thread.title).toBe("Private plans");
    });
  });

  describe("GraphQL", () => {
    it("creates, updates and deletes threads, and resolves Thread.memories and Memory.thread", async () => {
      const created = await suite.user.api.graphql(`mutation { createThread(input: { title: "Podcast ideas" }) { id status } }`);
      const { id } = created.body.data.createThread;
      expect(created.body.data.createThread.status).toBe("active");
      await suite.user.api.graphql(`mutation ($input: CreateMemoryInput!) { createMemory(input: $input) { id } }`, {
        input: { content: "an episode about lighthouses", threadId: id },
      });
      const read = await suite.user.api.graphql(
        `query ($id: ID!) { thread(id: $id) { title memoryCount memories(limit: 5) { content thread { title } } } }`,
        { id },
      );
      expect(read.body.data.thread).toEqual({
        title: "Podcast ideas",
        memoryCount: 1,
        memories: [{ content: "an episode about lighthouses", thread: { title: "Podcast ideas" } }],
      });
      // the page is the field's: refused at its path (it was refused at ["thread"], before the field resolved)
      for (const page of ["limit: 0", "limit: 101", "offset: -1"]) {
        const refused = await suite.user.api.graphql(`query ($id: ID!) { thread(id: $id) { title memories(${page}) { id } } }`, { id });
        expect(refused.body.errors, page).toMatchObject([{ path: ["thread", "memories"], extensions: { code: "VALIDATION_ERROR" } }]);
      }
      const updated = await suite.user.api.graphql(
        `mutation ($id: ID!) { updateThread(id: $id, input: { status: completed }) { status } }`,
        { id },
      );
      expect(updated.body.data.updateThread.status).toBe("completed");
      const deleted = await suite.user.api.graphql(`mutation ($id: ID!) { deleteThread(id: $id, deleteMemories: true) }`, { id });
      expect(deleted.body.data.deleteThread).toBe(true);
    });

    it("resolves nested threads and memories with a fixed number of queries, however many there are (no N+1)", async () => {
      const queryCount = async (who: TestUser) => {
        const before = statements.count;
        const res = await who.api.graphql(`{
          threads(limit: 100) { items { title memoryCount memories(limit: 100) { content thread { title } } } }
          memories(limit: 100) { items { content thread { title memoryCount } } }
        }`);
        expect(res.body.errors).toBeUndefined();
        return statements.count - before;
      };
      const small = await suite.server.newUser();
      const large = await suite.server.newUser();
      for (const [who, threads, perThread] of [
        [small, 2, 2],
        [large, 8, 6],
      ] as const) {
        for (let t = 0; t < threads; t++) {
          const thread = (await who.api.post("/api/v1/threads", { title: `thread ${t}` })).body;
          for (let m = 0; m < perThread; m++) {
            await who.api.post("/api/v1/memory", { content: `memory ${m} of ${t}`, thread_id: thread.id });
          }
        }
      }
      const few = await queryCount(small);
      const many = await queryCount(large);
      expect(few).toBeGreaterThan(0); // the counter sees the server's statements
      expect(many).toBe(few);
      expect(many).toBeLessThanOrEqual(8);
    });
  });
});
