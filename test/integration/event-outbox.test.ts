import { beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser, type TestUser } from "../support/server.ts";

interface OutboxRow {
  type: string;
  object_id: string;
  thread_id: string | null;
  data: Record<string, unknown> | null;
}

describe.skipIf(databaseUnavailable())("event outbox: one event per committed change, in its transaction", () => {
  const suite = serverWithUser();
  // the relay takes events out as it publishes them: stopped, it leaves them in the outbox to be read here
  beforeAll(() => suite.server.app.services.relay.stop());

  const outbox = (who: TestUser) =>
    suite.server.app.db.sql.query<OutboxRow>(
      "SELECT type, object_id, thread_id, data FROM events WHERE user_id = $1::uuid ORDER BY seq",
      [who.userId],
    );
  const kinds = async (who: TestUser) => (await outbox(who)).map((row) => `${row.type} ${row.object_id}`);
  const remember = async (who: TestUser, body: Record<string, unknown>) => {
    const res = await who.api.post("/api/v1/memory", body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string };
  };
  const newThread = async (who: TestUser) => {
    const res = await who.api.post("/api/v1/threads", { title: "Trip" });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string };
  };

  describe("memories", () => {
    it("a REST create yields memory.created carrying the memory as GraphQL shows it", async () => {
      const who = await suite.server.newUser();
      const { id } = await remember(who, { content: "likes tea", tags: ["drinks"], metadata: { source: "chat" } });
      const [event, ...rest] = await outbox(who);
      expect(rest).toEqual([]);
      const shown = await who.api.graphql(
        `query($id: ID!) { memory(id: $id) { id content data type tags metadata threadId isArchived workspaceId legacyUserId expiresAt createdAt updatedAt } }`,
        { id },
      );
      expect(event).toEqual({ type: "memory.created", object_id: id, thread_id: null, data: shown.body.data.memory });
    });

    it("single creates stored together (group commit) yield one event each", async () => {
      const who = await suite.server.newUser();
      const created = await Promise.all(Array.from({ length: 24 }, (_, i) => remember(who, { content: `fact ${i}` })));
      expect((await kinds(who)).sort()).toEqual(created.map(({ id }) => `memory.created ${id}`).sort());
    });

    it("a batch create yields one event per memory stored, none for an item refused", async () => {
      const who = await suite.server.newUser();
      const items = [{ content: "a" }, { content: "b" }, { content: "c", thread_id: "00000000-0000-4000-8000-000000000000" }];
      const res = await who.api.post("/api/v1/memory/batch", { memories: items });
      expect(res.status, res.text).toBe(200);
      const stored = (res.body.results as { success: boolean; id?: string }[]).flatMap((r) => (r.id ? [r.id] : []));
      expect(stored).toHaveLength(2);
      expect(await kinds(who)).toEqual(stored.map((id) => `memory.created ${id}`));
    });

    it("a GraphQL create and a deprecated workspace create yield memory.created", async () => {
      const who = await suite.server.newUser();
      const graphql = await who.api.graphql(`mutation { createMemory(input: { content: "from graphql" }) { id } }`);
      const legacy = await who.api.post("/api/v1/memories", { workspaceId: "ws1", content: "from legacy" });
      expect(legacy.status, legacy.text).toBe(201);
      expect(await kinds(who)).toEqual([
        `memory.created ${graphql.body.data.createMemory.id}`,
        `memory.created ${legacy.body.id}`,
      ]);
    });

    it("PATCH and PUT yield memory.updated with the memory after the change; DELETE yields memory.deleted with no data", async () => {
      const who = await suite.server.newUser();
      const { id } = await remember(who, { content: "old" });
      expect((await who.api.patch(`/api/v1/memories/${id}`, { tags: ["x"] })).status).toBe(200);
      expect((await who.api.put(`/api/v1/memories/${id}`, { content: "new" })).status).toBe(200);
      expect((await who.api.delete(`/api/v1/memories/${id}`)).status).toBe(200);
      const rows = await outbox(who);
      expect(rows.map((row) => row.type)).toEqual(["memory.created", "memory.updated", "memory.updated", "memory.deleted"]);
      expect(rows[1]!.data).toMatchObject({ content: "old", tags: ["x"] });
      expect(rows[2]!.data).toMatchObject({ content: "new", tags: [] });
      expect(rows[3]).toEqual({ type: "memory.deleted", object_id: id, thread_id: null, data: null });
    });

    it("a write that fails or is rolled back yields nothing", async () => {
      const who = await suite.server.newUser();
      const other = await suite.server.newUser();
      const { id } = await remember(who, { content: "mine" });
      expect((await other.api.patch(`/api/v1/memories/${id}`, { content: "theirs" })).status).toBe(404);
      expect((await other.api.delete(`/api/v1/memories/${id}`)).status).toBe(404);
      const foreign = await newThread(other);
      expect((await who.api.patch(`/api/v1/memories/${id}`, { thread_id: foreign.id })).status).toBe(400);
      await expect(
        suite.server.app.db.sql.transaction(async (sql) => {
          await sql.query("UPDATE memories SET content = 'changed', updated_at = now() WHERE id = $1::uuid", [id]);
          throw new Error("changed my mind");
        }),
      ).rejects.toThrow("changed my mind");
      expect(await kinds(who)).toEqual([`memory.created ${id}`]);
      expect(await kinds(other)).toEqual([`thread.created ${foreign.id}`]);
    });

    it("the service's own bookkeeping (embedding, lexical terms) is not a change to the memory", async () => {
      const who = await suite.server.newUser();
      const { id } = await remember(who, { content: "kept" });
      await suite.server.app.db.sql.query(
        "UPDATE memories SET lexical_version = lexical_version, embedder = embedder WHERE id = $1::uuid",
        [id],
      );
      expect(await kinds(who)).toEqual([`memory.created ${id}`]);
    });
  });

  describe("threads", () => {
    it("create, update and delete yield thread.created, thread.updated and thread.deleted", async () => {
      const who = await suite.server.newUser();
      const { id } = await newThread(who);
      await remember(who, { content: "in it", thread_id: id });
      expect((await who.api.patch(`/api/v1/threads/${id}`, { status: "archived" })).status).toBe(200);
      const rows = await outbox(who);
      expect(rows.map((row) => row.type)).toEqual(["thread.created", "memory.created", "thread.updated"]);
      expect(rows[0]!.data).toMatchObject({ id, title: "Trip", status: "active", memoryCount: 0 });
      expect(rows[1]!.thread_id).toBe(id);
      expect(rows[2]!.data).toMatchObject({ id, status: "archived", memoryCount: 1 });
    });

    it("a thread deleted with its memories yields their memory.deleted, then thread.deleted", async () => {
      const who = await suite.server.newUser();
      const { id } = await newThread(who);
      const a = await remember(who, { content: "a", thread_id: id });
      const b = await remember(who, { content: "b", thread_id: id });
      expect((await who.api.delete(`/api/v1/threads/${id}?delete_memories=true`)).status).toBe(200);
      const after = (await kinds(who)).slice(3);
      expect(after.slice(0, 2).sort()).toEqual([`memory.deleted ${a.id}`, `memory.deleted ${b.id}`].sort());
      expect(after.slice(2)).toEqual([`thread.deleted ${id}`]);
    });

    it("a thread deleted without its memories yields memory.updated for each memory it lets go", async () => {
      const who = await suite.server.newUser();
      const { id } = await newThread(who);
      const a = await remember(who, { content: "a", thread_id: id });
      expect((await who.api.delete(`/api/v1/threads/${id}`)).status).toBe(200);
      const rows = (await outbox(who)).slice(2);
      expect(rows.map((row) => `${row.type} ${row.object_id}`)).toEqual([`memory.updated ${a.id}`, `thread.deleted ${id}`]);
      expect(rows[0]).toMatchObject({ thread_id: id, data: { threadId: null } });
    });
  });
});
