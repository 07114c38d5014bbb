import { describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

interface Version {
  version: number;
  action: string;
  keyId: string | null;
  keyName: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}
interface HistoryPage {
  total: number;
  hasMore: boolean;
  items: Version[];
}

const HISTORY = `query ($id: ID!, $limit: Int, $offset: Int) {
  memoryHistory(id: $id, limit: $limit, offset: $offset) { total hasMore items { version action keyId keyName before after } }
}`;

describe.skipIf(databaseUnavailable())("a memory's history", () => {
  const suite = serverWithUser();
  const history = async (id: string, limit?: number, offset?: number, api = suite.user.api) => {
    const res = await api.graphql<{ memoryHistory: HistoryPage }>(HISTORY, { id, limit, offset });
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.memoryHistory;
  };

  it("names a change that unarchives and edits at once for the unarchive, its before and after showing the edit", async () => {
    const api = suite.user.api;
    const id: string = (await api.request("POST", "/api/v1/memory", { json: { content: "put away" } })).body.id;
    expect((await api.request("PATCH", `/api/v1/memories/${id}`, { json: { is_archived: true } })).status).toBe(200);
    const replaced = await api.request("PUT", `/api/v1/memories/${id}`, { json: { content: "taken out again", is_archived: false } });
    expect(replaced.status).toBe(200);
    const [latest] = (await history(id)).items;
    expect(latest!.action).toBe("unarchived");
    expect(latest!.before).toMatchObject({ content: "put away", isArchived: true });
    expect(latest!.after).toMatchObject({ content: "taken out again", isArchived: false });
  });

  it("records every change the API shows, newest first, with the key that made it, and keeps it after a delete", async () => {
    const api = suite.user.api;
    const created = await api.request("POST", "/api/v1/memory", { json: { content: "first words", tags: ["a"] } });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    expect((await api.request("PATCH", `/api/v1/memories/${id}`, { json: { tags: ["a", "b"] } })).status).toBe(200);
    expect((await api.request("PUT", `/api/v1/memories/${id}`, { json: { content: "second words" } })).status).toBe(200);
    expect((await api.request("PATCH", `/api/v1/memories/${id}`, { json: { is_archived: true } })).status).toBe(200);
    // a change to nothing the API shows (the background embedder storing a vector, say) is not a version
    await suite.server.app.services.db.sql.query("UPDATE memories SET embedder = 'other', lexical_version = 0 WHERE id = $1::uuid", [id]);
    expect((await history(id)).total).toBe(4);
    expect((await api.request("DELETE", `/api/v1/memories/${id}`)).status).toBe(200);

    const page = await history(id);
    expect(page.total).toBe(5);
    expect(page.items.map((v) => [v.version, v.action])).toEqual([
      [5, "deleted"],
      [4, "archived"],
      [3, "updated"],
      [2, "updated"],
      [1, "created"],
    ]);
    for (const version of page.items) {
      expect(version.keyId).toBe(suite.user.keyId);
      expect(version.keyName).toBeTypeOf("string");
    }
    const [deleted, archived, replaced, patched, first] = page.items;
    expect(first!.before).toBeNull();
    expect(first!.after).toMatchObject({ id, content: "first words", tags: ["a"], isArchived: false });
    expect(patched!.before).toMatchObject({ tags: ["a"] });
    expect(patched!.after).toMatchObject({ tags: ["a", "b"], content: "first words" });
    expect(replaced!.after).toMatchObject({ content: "second words", tags: [] });
    expect(archived!.after).toMatchObject({ isArchived: true });
    expect(deleted!.before).toMatchObject({ content: "second words", isArchived: true });
    expect(deleted!.after).toBeNull();
    // no secret anywhere in it
    expect(JSON.stringify(page)).not.toContain(suite.user.key);

    // REST: the same history, each memory as REST shows memories
    const viaRest = await api.request("GET", `/api/v1/memories/${id}/history?limit=2`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({ total: 5, limit: 2, offset: 0, has_more: true });
    expect(viaRest.body.history[0]).toMatchObject({ version: 5, action: "deleted", key_id: suite.user.keyId, after: null });
    expect(viaRest.body.history[0].before).toMatchObject({ id, content: "second words", is_archived: true, thread_id: null });
    expect(viaRest.body.history[1].changed_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);

    const second = await history(id, 2, 2);
    expect(second.items.map((v) => v.version)).toEqual([3, 2]);
    expect(second.hasMore).toBe(true);
  });

  it("shows a live memory's history on the memory, and the changes a thread's delete makes", async () => {
    const api = suite.user.api;
    const thread = await api.request("POST", "/api/v1/threads", { json: { title: "trip" } });
    const memory = await api.request("POST", "/api/v1/memory", { json: { content: "pack socks", thread_id: thread.body.id } });
    expect((await api.request("DELETE", `/api/v1/threads/${thread.body.id}`)).status).toBe(200);
    const res = await api.graphql<{ memory: { history: HistoryPage } }>(
      "query ($id: ID!) { memory(id: $id) { history { total items { version action keyId before after } } } }",
      { id: memory.body.id },
    );
    const items = res.body.data!.memory.history.items;
    expect(items.map((v) => v.action)).toEqual(["updated", "created"]);
    expect(items[0]!.before).toMatchObject({ threadId: thread.body.id });
    expect(items[0]!.after).toMatchObject({ threadId: null });
    expect(items[0]!.keyId).toBe(suite.user.keyId);
  });

  it("takes a PATCH that sends nothing as no change: no version, the memory answered as it was", async () => {
    const api = suite.user.api;
    const created = await api.post("/api/v1/memory", { content: "left alone" });
    const patched = await api.patch(`/api/v1/memories/${created.body.id}`, {});
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, content: "left alone", updated_at: created.body.updated_at });
    const graphql = await api.graphql(`mutation($id: ID!) { updateMemory(id: $id, input: {}) { updatedAt } }`, { id: created.body.id });
    expect(graphql.body.data?.updateMemory.updatedAt).toBe(created.body.updated_at);
    expect((await history(created.body.id)).items.map((v) => v.action)).toEqual(["created"]);
    // and a memory that is not there is still a 404
    expect((await api.patch("/api/v1/memories/00000000-0000-4000-8000-000000000000", {})).status).toBe(404);
  });

  it("takes a PUT or PATCH that sends the memory back as it is as no change, on memories and threads alike", async () => {
    const api = suite.user.api;
    const thread = await api.post("/api/v1/threads", { title: "Same", metadata: { a: 1, b: [2] } });
    const body = { content: "kept as it is", type: "note", tags: ["x", "y"], metadata: { k: { n: 1 }, z: null }, thread_id: thread.body.id };
    const created = await api.post("/api/v1/memory", body);
    const put = await api.put(`/api/v1/memories/${created.body.id}`, { ...body, metadata: { z: null, k: { n: 1 } } });
    const patched = await api.patch(`/api/v1/memories/${created.body.id}`, { tags: ["x", "y"], is_archived: false });
    for (const answer of [put, patched]) {
      expect(answer.status).toBe(200);
      expect(answer.body.updated_at).toBe(created.body.updated_at);
    }
    expect((await history(created.body.id)).items.map((v) => v.action)).toEqual(["created"]);
    // a field that does change is still a version
    const changed = await api.patch(`/api/v1/memories/${created.body.id}`, { tags: ["y", "x"] });
    expect(changed.body.updated_at).not.toBe(created.body.updated_at);
    expect((await history(created.body.id)).items.map((v) => v.action)).toEqual(["updated", "created"]);

    const sameThread = await api.patch(`/api/v1/threads/${thread.body.id}`, { description: null, metadata: { b: [2], a: 1 }, title: "Same" });
    expect(sameThread.status).toBe(200);
    expect(sameThread.body.updated_at).toBe(thread.body.updated_at);
    const renamed = await api.patch(`/api/v1/threads/${thread.body.id}`, { title: "Renamed" });
    expect(renamed.body.updated_at).not.toBe(thread.body.updated_at);
  });

  it("dates concurrent changes in the order they commit: the memory's and the thread's updated_at, and the versions", async () => {
    const api = suite.user.api;
    const thread = await api.post("/api/v1/threads", { title: "raced" });
    const created = await api.post("/api/v1/memory", { content: "raced", thread_id: thread.body.id });
    const id: string = created.body.id;
    // on PostgreSQL the changes wait for each other's row lock, each in a transaction begun before the wait
    const patches = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.patch(`/api/v1/memories/${id}`, { metadata: { i }, tags: [`t${i}`] })),
    );
    const renames = await Promise.all(Array.from({ length: 10 }, (_, i) => api.patch(`/api/v1/threads/${thread.body.id}`, { title: `raced ${i}` })));
    for (const answer of [...patches, ...renames]) expect(answer.status, answer.text).toBe(200);
    // each answer is the memory as it was once its change committed: none newer than the one that stayed
    const memory = await api.get(`/api/v1/memories/${id}`);
    for (const answer of patches) expect(answer.body.updated_at <= memory.body.updated_at, `${answer.body.updated_at} after ${memory.body.updated_at}`).toBe(true);
    for (const answer of patches.filter((a) => a.body.updated_at === memory.body.updated_at)) expect(answer.body.metadata).toEqual(memory.body.metadata);
    const renamed = await api.get(`/api/v1/threads/${thread.body.id}`);
    for (const answer of renames) expect(answer.body.updated_at <= renamed.body.thread.updated_at, `${answer.body.updated_at} after ${renamed.body.thread.updated_at}`).toBe(true);
    // the versions' times rise with their order
    const versions = (await history(id, 100)).items.toReversed();
    const times = (await api.graphql<{ memoryHistory: { items: { changedAt: string }[] } }>(
      `query ($id: ID!) { memoryHistory(id: $id, limit: 100) { items { changedAt } } }`, { id },
    )).body.data!.memoryHistory.items.map((v) => v.changedAt).toReversed();
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(times).toEqual(times.toSorted());
  });

  it("shows nothing of another user's memory", async () => {
    const created = await suite.user.api.request("POST", "/api/v1/memory", { json: { content: "mine alone" } });
    const stranger = await suite.server.newUser();
    const page = await history(created.body.id, undefined, undefined, stranger.api);
    expect(page).toEqual({ total: 0, hasMore: false, items: [] });
    const viaRest = await stranger.api.request("GET", `/api/v1/memories/${created.body.id}/history`);
    expect(viaRest.status).toBe(404);
    expect(viaRest.body.error.code).toBe("NOT_FOUND");
  });

  // a data directory from a build before history was kept: REST answered 404 for a memory GET found (outside probe)
  it("answers a live memory with no versions (written before history was kept) with an empty history, over REST as over GraphQL", async () => {
    const api = suite.user.api;
    const { id } = (await api.post("/api/v1/memory", { content: "older than history" })).body as { id: string };
    await suite.server.app.services.db.sql.query("DELETE FROM memory_versions WHERE memory_id = $1::uuid", [id]);
    expect(await history(id)).toEqual({ total: 0, hasMore: false, items: [] });
    const res = await api.get(`/api/v1/memories/${id}/history`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ history: [], total: 0, has_more: false });
    expect((await api.get("/api/v1/memories/00000000-0000-4000-8000-000000000000/history")).status).toBe(404);
  });

  it("purges the history of memories deleted longer ago than the retention, and keeps the rest", async () => {
    const api = suite.user.api;
    const kept = await api.request("POST", "/api/v1/memory", { json: { content: "still here" } });
    const gone = await api.request("POST", "/api/v1/memory", { json: { content: "deleted long ago" } });
    await api.request("DELETE", `/api/v1/memories/${gone.body.id}`);
    const sql = suite.server.app.services.db.sql;
    await sql.query("UPDATE memory_versions SET changed_at = changed_at - interval '31 days' WHERE memory_id = $1::uuid", [gone.body.id]);
    expect(await suite.server.app.services.history.purge()).toBe(2);
    expect((await history(gone.body.id)).total).toBe(0);
    expect((await history(kept.body.id)).total).toBe(1);
  });

  it("keeps the history of a memory stored again under its id after an old delete (an import), and of another user's under that id", async () => {
    const { api } = suite.user;
    const memory = await api.request("POST", "/api/v1/memory", { json: { content: "restored from its export" } });
    const exported = (await api.request("GET", "/api/v1/export")).text.split("\n").find((line) => line.includes(memory.body.id))!;
    await api.request("DELETE", `/api/v1/memories/${memory.body.id}`);
    const sql = suite.server.app.services.db.sql;
    await sql.query("UPDATE memory_versions SET changed_at = changed_at - interval '31 days' WHERE memory_id = $1::uuid", [memory.body.id]);
    const ndjson = { "content-type": "application/x-ndjson" };
    expect((await api.post("/api/v1/import", undefined, { raw: `${exported}\n`, headers: ndjson })).status).toBe(200);
    expect((await api.request("PATCH", `/api/v1/memories/${memory.body.id}`, { json: { tags: ["restored"] } })).status).toBe(200);
    // another user's memory, deleted long ago, under an id this one takes afterwards
    const other = await suite.server.newUser();
    const theirs = await other.api.request("POST", "/api/v1/memory", { json: { content: "theirs, deleted" } });
    await other.api.request("DELETE", `/api/v1/memories/${theirs.body.id}`);
    await sql.query("UPDATE memory_versions SET changed_at = changed_at - interval '31 days' WHERE memory_id = $1::uuid", [theirs.body.id]);
    const reused = exported.replace(memory.body.id, theirs.body.id);
    expect((await api.post("/api/v1/import", undefined, { raw: `${reused}\n`, headers: ndjson })).status).toBe(200);
    expect(await suite.server.app.services.history.purge()).toBe(2); // the other user's two versions
    expect((await history(memory.body.id)).items.map((v: { action: string }) => v.action)).toEqual(["updated", "created", "deleted", "created"]);
    expect((await history(theirs.body.id)).items.map((v: { action: string }) => v.action)).toEqual(["created"]);
  });
});
