import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { countingEmbedder } from "../support/counting-embedder.ts";
import type { HttpClient } from "../support/http.ts";
import type { Embedder } from "../../src/embeddings/embedder.ts";
import { databaseUnavailable, serverWithUser, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

type Line = Record<string, any>;

const NDJSON = { "content-type": "application/x-ndjson" };

async function exportOf(api: HttpClient, query = ""): Promise<{ lines: Line[]; contentType: string | null }> {
  const res = await api.get(`/api/v1/export${query}`);
  expect(res.status).toBe(200);
  const lines = res.text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Line);
  return { lines, contentType: res.headers.get("content-type") };
}

const ndjson = (lines: readonly unknown[]) => lines.map((line) => JSON.stringify(line)).join("\n") + "\n";

async function importOf(api: HttpClient, lines: readonly unknown[]) {
  const res = await api.post("/api/v1/import", undefined, { raw: ndjson(lines), headers: NDJSON });
  expect(res.status, res.text).toBe(200);
  return res.body as { created: number; updated: number; skipped: number; failed: number; results: Line[] };
}

/** What a user sees: every memory (newest first), search and recall answers, and their threads with their memories. */
async function viewOf(api: HttpClient) {
  const list = (await api.get("/api/v1/memory?limit=100")).body;
  const search = (await api.get("/api/v1/memory/search?query=green%20tea&limit=5")).body;
  const threads = (await api.get("/api/v1/threads?limit=100")).body;
  // within the thread: across the whole store, memories the query hardly matches tie, in no defined order
  const trip = threads.threads.find((t: Line) => t.title === "Trip to Porto");
  const recall = (await api.post("/api/v1/memory/recall", { query: "when is the flight?", thread_id: trip.id })).body;
  const threadMemories = await Promise.all(
    threads.threads.map(async (t: Line) => (await api.get(`/api/v1/threads/${t.id}?include_memories=true&limit=100`)).body),
  );
  return { list, search, recall, threads, threadMemories };
}

describe.skipIf(databaseUnavailable())("export and import", () => {
  const suite = serverWithUser();
  let source: Line[];

  beforeAll(async () => {
    const api = suite.user.api;
    const trip = (await api.post("/api/v1/threads", { title: "Trip to Porto", description: "May", metadata: { a: 1 } })).body;
    await api.post("/api/v1/threads", { title: "Empty" });
    const archived = (await api.post("/api/v1/threads", { title: "Old" })).body;
    await api.patch(`/api/v1/threads/${archived.id}`, { status: "archived" });
    const notes = [
      { content: "I prefer green tea to coffee", type: "preference", tags: ["drinks"] },
      { content: "Flight to Porto on May 3", thread_id: trip.id, metadata: { seat: "12A", n: [1, 2] } },
      { content: { dish: "francesinha", rating: 5 }, type: "observation", thread_id: trip.id },
      { content: "An archived note", is_archived: true },
    ];
    for (const note of notes) expect((await api.post("/api/v1/memory", note)).status).toBe(201);
    const batch = await api.post("/api/v1/memory/batch", Array.from({ length: 30 }, (_, i) => ({ content: `filler note ${i} about green tea` })));
    expect(batch.body.summary.failed).toBe(0);
    const first = (await api.get("/api/v1/memory?limit=1")).body.memories[0];
    await api.patch(`/api/v1/memories/${first.id}`, { tags: ["edited"] });
    source = (await exportOf(api, "?history=true&embeddings=true")).lines;
  });

  it("streams threads then memories as NDJSON, each in its API shape with its id", async () => {
    const { lines, contentType } = await exportOf(suite.user.api);
    expect(contentType).toMatch(/^application\/x-ndjson/);
    const kinds = lines.map((line) => line.kind);
    expect(kinds.filter((k) => k === "thread")).toHaveLength(3);
    expect(kinds.filter((k) => k === "memory")).toHaveLength(34);
    expect(kinds.lastIndexOf("thread")).toBeLessThan(kinds.indexOf("memory"));
    const record = lines.find((line) => typeof line.content === "object")!;
    expect(record).toEqual({
      kind: "memory",
      id: expect.any(String),
      content: { dish: "francesinha", rating: 5 },
      type: "observation",
      tags: [],
      metadata: {},
      thread_id: expect.any(String),
      is_archived: false,
      expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const thread = lines.find((line) => line.title === "Trip to Porto")!;
    expect(thread).toEqual({
      kind: "thread",
      id: record.thread_id,
      title: "Trip to Porto",
      description: "May",
      metadata: { a: 1 },
      status: "active",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // without the flags: neither history nor embedding
    expect(lines.some((line) => "history" in line || "embedding" in line)).toBe(false);
  });

  it("adds each memory's history and its vector with the embedder's id when asked", () => {
    const memories = source.filter((line) => line.kind === "memory");
    const edited = memories.find((line) => line.tags.includes("edited"))!;
    expect(edited.history.map((v: Line) => v.action)).toEqual(["created", "updated"]);
    expect(edited.history[1].before.tags).toEqual([]);
    expect(edited.history[1].after.tags).toEqual(["edited"]);
    const embedder = suite.server.app.services.embedder;
    for (const memory of memories) {
      expect(memory.embedding.embedder).toBe(embedder.id);
      expect(Buffer.from(memory.embedding.vector, "base64").length).toBe(embedder.dimensions * 4);
    }
  });

  describe("into an empty database", () => {
    let target: TestServer;
    let user: TestUser;
    const embedder = countingEmbedder();

    beforeAll(async () => {
      target = await startTestServer({}, { embedder });
      user = await target.newUser();
    });
    afterAll(() => target?.close());

    it("gives the same list, search and recall answers and thread structure, reusing the vectors", async () => {
      const calls = embedder.calls.length;
      const result = await importOf(user.api, source);
      expect(result).toMatchObject({ created: 37, updated: 0, skipped: 0, failed: 0 });
      expect(result.results.map((r) => r.line)).toEqual(source.map((_, i) => i + 1));
      expect(result.results.map((r) => r.id)).toEqual(source.map((line) => line.id));
      // the vectors came with the file: nothing to embed
      expect(embedder.calls.length).toBe(calls);
      expect(await viewOf(user.api)).toEqual(await viewOf(suite.user.api));
      expect((await exportOf(user.api)).lines).toEqual((await exportOf(suite.user.api)).lines);
    });

    it("changes nothing when the same file is imported again", async () => {
      const before = await viewOf(user.api);
      const result = await importOf(user.api, source);
      expect(result).toMatchObject({ created: 0, updated: 0, skipped: 37, failed: 0 });
      expect(await viewOf(user.api)).toEqual(before);
    });

    it("replaces a record that differs, and embeds content whose vector another embedder made", async () => {
      const memory = source.find((line) => line.kind === "memory" && line.content === "I prefer green tea to coffee")!;
      const changed = { ...memory, content: "I prefer oolong to coffee", embedding: { embedder: "other-model:3", vector: [1, 0, 0] } };
      const calls = embedder.calls.length;
      const result = await importOf(user.api, [changed]);
      expect(result).toMatchObject({ created: 0, updated: 1, skipped: 0, failed: 0 });
      expect(embedder.calls.length).toBe(calls + 1);
      expect((await user.api.get(`/api/v1/memories/${memory.id}`)).body.content).toBe("I prefer oolong to coffee");
      const found = (await user.api.get("/api/v1/memory/search?query=oolong&limit=1")).body.results[0];
      expect(found.id).toBe(memory.id);
    });
  });

  // the sentence encoder's way: writes are embedded in the background, and the embedded database's index finds
  // at start what it lacks (reconcile), so memories that come with their vector queue no task
  describe("into an empty database whose embedder embeds writes in the background", () => {
    let target: TestServer;
    const inner = countingEmbedder();
    const deferring: Embedder = { ...inner, deferWrites: true, embed: (texts, priority) => inner.embed(texts, priority) };

    beforeAll(async () => {
      target = await startTestServer({}, { embedder: deferring });
    });
    afterAll(() => target?.close());

    it("indexes the memories imported with their vectors at once, as the original's, without embedding them", async () => {
      const user = await target.newUser();
      const calls = inner.calls.length;
      expect(await importOf(user.api, source)).toMatchObject({ created: 37, failed: 0 });
      expect(inner.calls.length).toBe(calls);
      expect(await target.app.services.index.count(deferring.id)).toBe(34);
      const query = "what do I like to drink?";
      const ids = (api: TestUser["api"]) => api.get(`/api/v1/memory/search?query=${encodeURIComponent(query)}&limit=5`).then((res) => res.body.results.map((hit: Line) => hit.id));
      expect(await ids(user.api)).toEqual(await ids(suite.user.api));
    });
  });

  it("never overwrites or shows another user's records: their ids fail their lines", async () => {
    const other = await suite.server.newUser();
    const before = await viewOf(suite.user.api);
    const tampered = source.map((line) => (line.kind === "memory" ? { ...line, content: "overwritten" } : { ...line, title: "overwritten" }));
    const result = await importOf(other.api, tampered);
    expect(result).toMatchObject({ created: 0, updated: 0, skipped: 0, failed: 37 });
    for (const line of result.results) {
      expect(line.error).toEqual({ code: "VALIDATION_ERROR", message: expect.stringMatching(/^id is in use, not by one of your records/) });
      expect(JSON.stringify(line)).not.toContain("green tea");
    }
    expect(await viewOf(suite.user.api)).toEqual(before);
    expect((await other.api.get("/api/v1/memory")).body.total).toBe(0);
    // without its id, the record is the importer's own, under a new id
    const { id: _id, thread_id: _thread, ...record } = source.find((line) => line.kind === "memory")!;
    const fresh = await importOf(other.api, [record]);
    expect(fresh).toMatchObject({ created: 1, failed: 0 });
    expect(fresh.results[0]!.id).not.toBe(_id);
    expect((await other.api.get("/api/v1/memory")).body.memories[0].content).toBe(record.content);
  });

  it("keeps a deleted memory's id its owner's while its history is kept: another user's import of it fails, the owner's restores it", async () => {
    const owner = await suite.server.newUser();
    const other = await suite.server.newUser();
    const memory = (await owner.api.post("/api/v1/memory", { content: "a diary entry" })).body;
    await owner.api.patch(`/api/v1/memories/${memory.id}`, { content: "a diary entry, edited" });
    const { lines } = await exportOf(owner.api);
    expect((await owner.api.delete(`/api/v1/memories/${memory.id}`)).status).toBe(200);
    const taken = await importOf(other.api, [{ id: memory.id, content: "someone else's" }]);
    expect(taken.results[0]).toMatchObject({ status: "failed", error: { message: expect.stringMatching(/^id is in use, not by one of your records/) } });
    expect((await importOf(owner.api, lines)).results[0]).toMatchObject({ status: "created", id: memory.id });
    const versions = (await owner.api.get(`/api/v1/memories/${memory.id}/history`)).body.history.map((v: Line) => v.version);
    expect(versions).toEqual([4, 3, 2, 1]);
  });

  // an expired memory the sweeper had not deleted yet was revived in place as "updated", with no deleted version
  // (outside probe): it is gone for every read, so its import creates it anew, as after the sweep
  it("creates anew an expired memory the sweeper has not deleted yet, as it creates a deleted one", async () => {
    const owner = await suite.server.newUser();
    const memory = (await owner.api.post("/api/v1/memory", { content: "a note that expires", ttl_seconds: 3600 })).body;
    await suite.server.app.db.sql.query("UPDATE memories SET expires_at = now() - interval '1 second' WHERE id = $1::uuid", [memory.id]);
    expect((await owner.api.get(`/api/v1/memories/${memory.id}`)).status).toBe(404);
    const imported = await importOf(owner.api, [{ kind: "memory", id: memory.id, content: "a note that expires" }]);
    expect(imported).toMatchObject({ created: 1, updated: 0, results: [{ status: "created", id: memory.id }] });
    const history = (await owner.api.get(`/api/v1/memories/${memory.id}/history`)).body.history as { action: string }[];
    expect(history.map((v) => v.action)).toEqual(["created", "deleted", "created"]);
    expect((await owner.api.get(`/api/v1/memories/${memory.id}`)).body).toMatchObject({ content: "a note that expires", expires_at: null });
  });

  it("reports each bad line on its own and stores the others", async () => {
    const api = (await suite.server.newUser()).api;
    const long = JSON.stringify({ content: "x".repeat(suite.server.app.config.limits.maxBodyBytes) });
    const body = [
      JSON.stringify({ content: "good one" }),
      "{not json",
      "",
      JSON.stringify({ content: "" }),
      long,
      JSON.stringify({ kind: "memory", content: "in a thread not yet there", thread_id: "0190f2c4-0000-7000-8000-000000000000" }),
      JSON.stringify({ kind: "note", content: "what?" }),
      JSON.stringify({ content: "good two", tags: "not-a-list" }),
      JSON.stringify({ content: "good three" }),
      JSON.stringify({ content: "made in year 0", created_at: "0000-01-01T00:00:00Z" }),
      JSON.stringify({ kind: "thread", title: "ends after year 9999", updated_at: "+010000-01-01T00:00:00Z" }),
      JSON.stringify({ content: "from the future", created_at: "2099-01-01T00:00:00Z" }),
      JSON.stringify({ content: "changed before made", created_at: "2026-01-02T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" }),
      JSON.stringify({ content: "a date alone", created_at: "2025-01-02" }),
      JSON.stringify({ content: "a number Date reads as 2001", updated_at: "1" }),
    ].join("\n");
    const res = await api.post("/api/v1/import", undefined, { raw: body, headers: NDJSON });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 2, failed: 12 });
    const byLine = Object.fromEntries(res.body.results.map((r: Line) => [r.line, r]));
    expect(Object.keys(byLine).map(Number)).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    for (const line of [14, 15]) expect(byLine[line].error.message).toMatch(/^(created|updated)_at must be an ISO 8601 timestamp with a time and a zone/);
    // instants the database cannot store fail their own lines, not the import
    expect(byLine[10].error).toEqual({ code: "VALIDATION_ERROR", message: "created_at must be between 0001-01-01 and 9999-12-31 (UTC)" });
    expect(byLine[11].error).toEqual({ code: "VALIDATION_ERROR", message: "updated_at must be between 0001-01-01 and 9999-12-31 (UTC)" });
    expect(byLine[12].error).toEqual({ code: "VALIDATION_ERROR", message: "created_at must not be in the future" });
    expect(byLine[13].error).toEqual({ code: "VALIDATION_ERROR", message: "updated_at must not be before created_at" });
    // a line that fails names the kind and id it gave, where it gave them
    expect(byLine[4]).toMatchObject({ kind: "memory", id: null });
    expect(byLine[11]).toMatchObject({ kind: "thread", id: null });
    expect(byLine[7]).toMatchObject({ kind: null, id: null });
    expect(byLine[1]).toMatchObject({ status: "created", kind: "memory" });
    expect(byLine[2]).toMatchObject({ status: "failed", kind: null, error: { code: "INVALID_JSON" } });
    expect(byLine[4].error).toEqual({ code: "VALIDATION_ERROR", message: "content must not be empty" });
    expect(byLine[5].error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(byLine[6].error).toEqual({ code: "VALIDATION_ERROR", message: "thread_id does not name one of your threads" });
    // checked as a create and failed when stored: no id was stored, so none is named
    expect(byLine[6].id).toBeNull();
    expect(byLine[7].error.message).toMatch(/^kind must be/);
    expect(byLine[8].error.code).toBe("VALIDATION_ERROR");
    expect(byLine[9]).toMatchObject({ status: "created" });
  });

  it("reads page after page: every memory once, oldest first, past the size of a page", async () => {
    const api = (await suite.server.newUser()).api;
    const ids: string[] = [];
    for (let batch = 0; batch < 11; batch++) {
      const res = await api.post("/api/v1/memory/batch", Array.from({ length: 100 }, (_, i) => ({ content: `note ${batch * 100 + i}` })));
      ids.push(...res.body.results.map((r: Line) => r.id));
    }
    const { lines } = await exportOf(api);
    expect(lines.map((line) => line.id)).toEqual(ids);
  });

  it("carries a memory's expiry out and back in, and leaves out a memory already expired", async () => {
    const api = (await suite.server.newUser()).api;
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const later = (await api.post("/api/v1/memory", { content: "the parking code is 5521", expires_at: expiresAt })).body;
    const soon = (await api.post("/api/v1/memory", { content: "the door code is 1234", ttl_seconds: 1 })).body;
    await new Promise((resolve) => setTimeout(resolve, Date.parse(soon.expires_at) - Date.now() + 50));
    const { lines } = await exportOf(api);
    expect(lines.map((line) => [line.id, line.expires_at])).toEqual([[later.id, expiresAt]]);

    // read back after a delete (another user's import of this id would fail: the id is this user's)
    const target = api;
    expect((await api.delete(`/api/v1/memories/${later.id}`)).status).toBe(200);
    const first = await importOf(target, lines);
    expect(first, JSON.stringify(first)).toMatchObject({ created: 1, failed: 0 });
    expect((await target.get(`/api/v1/memories/${later.id}`)).body.expires_at).toBe(expiresAt);
    // the same line again is the same memory, expiry included; a moved expiry is a change
    expect(await importOf(target, lines)).toMatchObject({ skipped: 1 });
    const moved = new Date(Date.now() + 7_200_000).toISOString();
    expect(await importOf(target, [{ ...lines[0], expires_at: moved }])).toMatchObject({ updated: 1 });
    expect((await target.get(`/api/v1/memories/${later.id}`)).body.expires_at).toBe(moved);
  });

  it("keeps the file's times when it replaces a record, and takes a change of times alone as a change", async () => {
    const api = (await suite.server.newUser()).api;
    const id = "01a20000-0000-7000-8000-0000000071e5";
    const thread = "01a20000-0000-7000-8000-0000000071e6";
    const [created, updated, later] = ["2025-01-01T00:00:00.000Z", "2025-06-01T00:00:00.000Z", "2025-07-01T00:00:00.000Z"];
    const first = await importOf(api, [
      { kind: "thread", id: thread, title: "Times", updated_at: updated },
      { id, content: "v1", created_at: created, updated_at: updated },
    ]);
    expect(first).toMatchObject({ created: 2, failed: 0 });
    // a line with updated_at alone: created then too, never after its own change
    expect((await api.get(`/api/v1/threads/${thread}`)).body.thread).toMatchObject({ created_at: updated, updated_at: updated });
    const replaced = await importOf(api, [
      { kind: "thread", id: thread, title: "Times, renamed", created_at: created, updated_at: later },
      { id, content: "v2", created_at: created, updated_at: later },
    ]);
    expect(replaced.results.map((r) => r.status)).toEqual(["updated", "updated"]);
    expect((await api.get(`/api/v1/memories/${id}`)).body).toMatchObject({ content: "v2", created_at: created, updated_at: later });
    expect((await api.get(`/api/v1/threads/${thread}`)).body.thread).toMatchObject({ title: "Times, renamed", created_at: created, updated_at: later });
    // the same record with other times is a change; the same times, nothing
    expect((await importOf(api, [{ id, content: "v2", created_at: created, updated_at: updated }])).results[0]!.status).toBe("updated");
    expect((await api.get(`/api/v1/memories/${id}`)).body.updated_at).toBe(updated);
    expect((await importOf(api, [{ id, content: "v2", created_at: created, updated_at: updated }])).results[0]!.status).toBe("skipped");
    // an updated_at before the record's creation (the line gives none) fails its line
    const early = await importOf(api, [{ id, content: "v3", updated_at: "2024-01-01T00:00:00.000Z" }]);
    expect(early.results[0]).toMatchObject({ status: "failed", error: { message: expect.stringMatching(/^updated_at must not be before created_at/) } });
  });

  it("keeps a thread's metadata key called __proto__, created and replaced", async () => {
    const api = (await suite.server.newUser()).api;
    const id = "01a20000-0000-7000-8000-0000000071e7";
    const metadataKeys = async () => Object.keys((await api.get(`/api/v1/threads/${id}`)).body.thread.metadata).sort();
    expect(await importOf(api, [{ kind: "thread", id, title: "p", metadata: JSON.parse('{"__proto__":{"a":1},"b":2}') }])).toMatchObject({ created: 1 });
    expect(await metadataKeys()).toEqual(["__proto__", "b"]);
    expect(await importOf(api, [{ kind: "thread", id, title: "p", metadata: JSON.parse('{"__proto__":{"a":2}}') }])).toMatchObject({ updated: 1 });
    expect(await metadataKeys()).toEqual(["__proto__"]);
  });

  it("stores a record given twice in one file once: the later line replaces the earlier", async () => {
    const api = (await suite.server.newUser()).api;
    const id = "01a20000-0000-7000-8000-00000000abcd";
    const result = await importOf(api, [
      { id, content: "first version" },
      { id, content: "first version" },
      { id, content: "second version" },
    ]);
    expect(result.results.map((r) => r.status)).toEqual(["created", "skipped", "updated"]);
    expect((await api.get(`/api/v1/memories/${id}`)).body.content).toBe("second version");
  });

  it("imports one file three times at once: each record stored once, and no line failed as another user's", async () => {
    const api = (await suite.server.newUser()).api;
    const thread = { kind: "thread", id: "01a20000-0000-7000-8000-0000000e0000", title: "At once" };
    const memories = Array.from({ length: 300 }, (_, i) => ({
      kind: "memory",
      id: `01a20000-0000-7000-8000-${String(i).padStart(12, "0")}`,
      content: `imported at once ${i}`,
      ...(i % 3 === 0 ? { thread_id: thread.id } : {}),
    }));
    const results = await Promise.all([1, 2, 3].map(() => importOf(api, [thread, ...memories])));
    for (const result of results) {
      expect(result.failed, JSON.stringify(result.results.find((r) => r.status === "failed"))).toBe(0);
      expect(result.created + result.skipped + result.updated).toBe(301);
    }
    expect(results.reduce((sum, result) => sum + result.created, 0)).toBe(301);
    expect((await api.get("/api/v1/memory?limit=1")).body.total).toBe(300);
  });

  it("takes a JSON array of plain memories, and refuses other bodies", async () => {
    const api = (await suite.server.newUser()).api;
    const res = await api.post("/api/v1/import", [{ content: "one" }, { content: "two", type: "task" }]);
    expect(res.body).toMatchObject({ created: 2, failed: 0 });
    expect((await api.get("/api/v1/memory")).body.total).toBe(2);
    const text = await api.post("/api/v1/import", undefined, { raw: "hello", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
    expect((await api.get("/api/v1/export?history=maybe")).status).toBe(400);
    const head = await api.request("HEAD", "/api/v1/export");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect(head.text).toBe("");
    expect((await suite.server.client().get("/api/v1/export")).status).toBe(401);
  });
});

describe.skipIf(databaseUnavailable())("an import past MAX_IMPORT_BYTES sent without Content-Length", () => {
  // read in chunks of 64 KB: the limit falls in the fourth, after hundreds of lines stored
  const suite = serverWithUser({ MAX_IMPORT_BYTES: "200000" });

  const send = (lines: readonly string[]) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${suite.server.url}/api/v1/import`, {
        method: "POST",
        headers: { ...NDJSON, authorization: `Bearer ${suite.user.key}` }, // chunked: the server learns the size as it reads
      });
      req.on("response", async (res) => {
        let text = "";
        for await (const chunk of res) text += chunk;
        resolve({ status: res.statusCode!, body: JSON.parse(text) });
      });
      req.on("error", reject);
      for (const line of lines) req.write(line);
      req.end();
    });

  it("stops where it passes the limit, and its 413 lists the lines stored before, as a 200 would", async () => {
    const line = (i: number) => `${JSON.stringify({ content: `line ${i} ${"x".repeat(250)}` })}\n`;
    const { status, body } = await send(Array.from({ length: 1100 }, (_, i) => line(i + 1)));
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("the import stopped there") });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.every((result: Line) => result.status === "created")).toBe(true);
    expect(body.created).toBe(body.results.length);
    const stored = await suite.user.api.get("/api/v1/memory?limit=1");
    expect(stored.body.total, "exactly the lines it lists are stored").toBe(body.results.length);
  });

  it("answers so too when it stops before a line was stored: zero counts, no results", async () => {
    // fewer lines than a statement stores at once: none is stored before the limit is passed
    const { status, body } = await send(Array.from({ length: 80 }, (_, i) => `${JSON.stringify({ content: `big ${i} ${"y".repeat(3000)}` })}\n`));
    expect(status).toBe(413);
    expect(body).toMatchObject({ created: 0, updated: 0, skipped: 0, failed: 0, results: [] });
    expect(body.error.message).toMatch(/the import stopped there, before any line was stored$/);
  });

  it("answers a client still sending: the rest of the body, sent after the 413 came, is dropped (it was a reset)", async () => {
    const line = (i: number) => `${JSON.stringify({ content: `slow ${i} ${"z".repeat(3000)}` })}\n`;
    const { status, body } = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${suite.server.url}/api/v1/import`, { method: "POST", headers: { ...NDJSON, authorization: `Bearer ${suite.user.key}` } });
      req.on("error", reject);
      req.on("response", async (res) => {
        // the rest, once the answer has come: the server answered before the body's end
        for (let i = 70; i < 90; i++) req.write(line(i));
        req.end();
        let text = "";
        for await (const chunk of res) text += chunk;
        resolve({ status: res.statusCode!, body: JSON.parse(text) });
      });
      for (let i = 0; i < 70; i++) req.write(line(i)); // about 210 KB: past MAX_IMPORT_BYTES
    });
    expect(status).toBe(413);
    expect(body).toMatchObject({ created: 0, results: [], error: { code: "PAYLOAD_TOO_LARGE" } });
  });
});
