import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { MemoryClient, MemoryServiceError, type Memory, type RequestEvent } from "../../src/client/index.ts";
import { keyAdmin } from "../../src/domain/key-admin.ts";
import { rejection } from "../support/rejection.ts";
import { databaseAgnosticRun, serverWithUser, startTestServer } from "../support/server.ts";
import { BEFORE_REPLACE, CREATED_FULL_MEMORY, FULL_MEMORY, REPLACED, REPLACEMENT, UUID } from "../support/wire.ts";

// The client library against the real server, over a real socket.


/**
 * A TCP proxy to `target` that loses the first response: it forwards the request, and the moment the first
 * bytes of the answer arrive (so the server has done the work) it cuts the caller's connection.
 */
async function responseLosingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  let lost = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const proxy = createServer((caller) => {
    const upstream = connect(Number(port), hostname);
    track(caller);
    track(upstream);
    caller.pipe(upstream);
    upstream.on("data", (chunk: Buffer) => {
      if (lost) {
        caller.write(chunk);
        return;
      }
      lost = true;
      caller.destroy();
      upstream.destroy();
    });
    upstream.on("end", () => caller.end());
    upstream.on("close", () => caller.destroy());
    caller.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close() {
      sockets.forEach((socket) => socket.destroy());
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe.runIf(databaseAgnosticRun())("client library against the server", () => {
  const suite = serverWithUser();
  let client: MemoryClient;
  const clientFor = (apiKey: string, options: Partial<ConstructorParameters<typeof MemoryClient>[0]> = {}) =>
    new MemoryClient({ apiKey, baseUrl: suite.server.url, retryDelay: 10, ...options });

  beforeAll(async () => {
    client = clientFor(suite.user.key);
  });

  describe("memories.create", () => {
    it("stores text with every field and returns the memory with ok: true", async () => {
      const created = await client.memories.create(FULL_MEMORY);
      expect(created).toEqual(CREATED_FULL_MEMORY);
      expect((await suite.user.api.get(`/api/v1/memories/${created.id}`)).body.content).toBe("I prefer tea to coffee");
    });

    it("stores an object given as data and returns it as content", async () => {
      const record = { dish: "ramen", rating: 5, notes: { spicy: true, extras: ["egg", "nori"] } };
      const created = await client.memories.create({ data: record, type: "observation" });
      expect(created).toMatchObject({ content: record, type: "observation", ok: true });
      expect((await suite.user.api.get(`/api/v1/memories/${created.id}`)).body.content).toEqual(record);
    });

    it("passes the server's VALIDATION_ERROR through without retrying", async () => {
      const error = await rejection(client.memories.create({ content: "x", tags: ["a".repeat(65)] }));
      expect(error).toMatchObject({ code: "VALIDATION_ERROR", status: 400, attempts: 1 });
      expect(error.message).toMatch(/^tags/);
    });

    it("stores one memory when the response to a create is lost and the client retries", async () => {
      const writer = await suite.server.newUser();
      const proxy = await responseLosingProxy(suite.server.url);
      try {
        const attempts: RequestEvent[] = [];
        const errors: string[] = [];
        const viaProxy = new MemoryClient({
          apiKey: writer.key,
          baseUrl: proxy.url,
          retryDelay: 10,
          hooks: { onRequest: (event) => void attempts.push(event), onError: (event) => void errors.push(event.error.code) },
        });
        const created = await viaProxy.memories.create({ content: "written once", tags: ["lost-response"] });
        expect(errors).toEqual(["NETWORK_ERROR"]);
        expect(attempts).toHaveLength(2);
        expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey);
        const stored = (await writer.api.get("/api/v1/memory?tags=lost-response")).body;
        expect(stored.total).toBe(1);
        expect(stored.memories[0].id).toBe(created.id);
      } finally {
        await proxy.close();
      }
    });
  });

  describe("memories.get, update, replace, delete", () => {
    it("get returns the memory as it was created", async () => {
      const { ok, ...created } = await client.memories.create({ content: "get me", tags: ["x"] });
      expect(ok).toBe(true);
      expect(await client.memories.get(created.id)).toEqual(created);
    });

    it("get of an unknown id is NOT_FOUND, with the request id the server logged", async () => {
      let sent: string | undefined;
      const watched = clientFor(suite.user.key, { hooks: { onRequest: (event) => void (sent = event.requestId) } });
      const error = await rejection(watched.memories.get("00000000-0000-4000-8000-000000000000"));
      expect(error).toMatchObject({ code: "NOT_FOUND", status: 404, attempts: 1 });
      // the server adopts the X-Request-Id the client sends, so the two sides' logs join up
      expect(error.requestId).toBe(sent);
    });

    it("update (PATCH) changes what is given, keeps the rest, clears what is null, archives", async () => {
      const created = await client.memories.create({ content: "old", type: "task", tags: ["a"], metadata: { k: 1 } });
      const updated = await client.memories.update(created.id, { content: "new", type: null, is_archived: true });
      expect(updated).toMatchObject({
        id: created.id,
        content: "new",
        type: null,
        tags: ["a"],
        metadata: { k: 1 },
        is_archived: true,
        created_at: created.created_at,
      });
      expect((await client.memories.update(created.id, { data: { now: "a record" } })).content).toEqual({ now: "a record" });
    });

    it("replace (PUT) sets every field; what is left out goes back to its default", async () => {
      const created = await client.memories.create(BEFORE_REPLACE);
      const replaced = await client.memories.replace(created.id, REPLACEMENT);
      expect(replaced).toMatchObject({ id: created.id, ...REPLACED });
    });

    it("replace without content is the server's VALIDATION_ERROR", async () => {
      const created = await client.memories.create({ content: "x" });
      const input = { type: "task" } as unknown as Parameters<typeof client.memories.replace>[1];
      const error = await rejection(client.memories.replace(created.id, input));
      expect(error).toMatchObject({ code: "VALIDATION_ERROR", status: 400, message: "content is required" });
    });

    it("delete resolves when the response to it is lost and the retry finds the memory gone, and so does a thread's", async () => {
      const owner = await suite.server.newUser();
      const memory = (await owner.api.post("/api/v1/memory", { content: "deleted once" })).body;
      const thread = (await owner.api.post("/api/v1/threads", { title: "deleted once" })).body;
      for (const remove of [(c: MemoryClient) => c.memories.delete(memory.id), (c: MemoryClient) => c.threads.delete(thread.id)]) {
        const proxy = await responseLosingProxy(suite.server.url);
        try {
          const errors: string[] = [];
          const viaProxy = new MemoryClient({ apiKey: owner.key, baseUrl: proxy.url, retryDelay: 10, hooks: { onError: (event) => void errors.push(event.error.code) } });
          expect(await remove(viaProxy)).toBeUndefined();
          expect(errors).toEqual(["NETWORK_ERROR"]);
        } finally {
          await proxy.close();
        }
      }
      expect((await owner.api.get(`/api/v1/memories/${memory.id}`)).status).toBe(404);
      expect((await owner.api.get(`/api/v1/threads/${thread.id}`)).status).toBe(404);
    });

    it("delete resolves with nothing; the memory is gone after", async () => {
      const created = await client.memories.create({ content: "delete me" });
      expect(await client.memories.delete(created.id)).toBeUndefined();
      expect((await rejection(client.memories.get(created.id))).code).toBe("NOT_FOUND");
      expect((await rejection(client.memories.delete(created.id))).code).toBe("NOT_FOUND");
    });
  });

  describe("memories.list", () => {
    let lister: MemoryClient;
    const created: Memory[] = [];

    beforeAll(async () => {
      lister = clientFor((await suite.server.newUser()).key);
      // 25 memories, oldest first: i % 3 decides the type, i % 2 the tags, every fifth is archived
      for (let i = 0; i < 25; i++) {
        const memory = await lister.memories.create({
          content: `memory ${i}`,
          type: ["preference", "task", "journal"][i % 3],
          tags: i % 2 === 0 ? ["even", "all"] : ["odd", "all"],
        });
        created.push(i % 5 === 0 ? await lister.memories.update(memory.id, { is_archived: true }) : memory);
      }
    });

    it("awaited, gives one page: newest first, with total, limit, offset and has_more", async () => {
      const page = await lister.memories.list();
      expect(page).toMatchObject({ total: 25, limit: 20, offset: 0, has_more: true });
      expect(page.memories.map((m) => m.content)).toEqual(created.slice(5).reverse().map((m) => m.content));
      expect(await lister.memories.list({ limit: 10, offset: 20 })).toMatchObject({ offset: 20, has_more: false });
    });

    it("filters by type, tags (every one listed), is_archived, and combinations", async () => {
      expect((await lister.memories.list({ type: "task", limit: 100 })).total).toBe(8);
      expect((await lister.memories.list({ tags: ["even"] })).total).toBe(13);
      expect((await lister.memories.list({ tags: ["even", "odd"] })).total).toBe(0);
      expect((await lister.memories.list({ is_archived: true })).total).toBe(5);
      expect((await lister.memories.list({ is_archived: false })).total).toBe(20);
      expect((await lister.memories.list({ type: "preference", tags: ["even"], is_archived: false })).total).toBe(4);
    });

    it("filters by thread_id", async () => {
      expect((await lister.memories.list({ thread_id: "00000000-0000-4000-8000-000000000000" })).total).toBe(0);
      const error = await rejection(lister.memories.list({ thread_id: "not-a-thread" }));
      expect(error).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(error.message).toMatch(/^thread_id/);
    });

    it("iterated with for await, yields every memory across the pages", async () => {
      const contents: string[] = [];
      for await (const memory of lister.memories.list({ limit: 10 })) contents.push(String(memory.content));
      expect(contents).toEqual(created.map((m) => m.content).reverse());

      const pages: number[] = [];
      for await (const page of lister.memories.list({ limit: 10, tags: ["odd"] }).pages()) pages.push(page.memories.length);
      expect(pages).toEqual([10, 2]);
    });

    it("a limit over 100 is the server's VALIDATION_ERROR", async () => {
      const error = await rejection(lister.memories.list({ limit: 101 }));
      expect(error).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    });

    it("filters with boolean logic through filter, beside the simple parameters", async () => {
      // tasks are i % 3 == 1 (8), "even" i % 2 == 0 (13), both 4 of them
      expect((await lister.memories.list({ filter: { or: [{ type: "task" }, { tags: ["even"] }] } })).total).toBe(17);
      expect((await lister.memories.list({ filter: { not: { type: "task" } }, is_archived: false })).total).toBe(13);
      const twice = await rejection(lister.memories.list({ type: "task", filter: { type: "task" } }));
      expect(twice).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringMatching(/^filter names type/) });
    });

    it("pages by cursor: a page after next_cursor, and a walk that memories added meanwhile do not shift", async () => {
      const first = await lister.memories.list({ limit: 10 });
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await lister.memories.list({ limit: 10, cursor: first.next_cursor! });
      expect(second).toMatchObject({ offset: null, has_more: true, total: 25 });
      expect(second.memories.map((m) => m.content)).toEqual(created.slice(5, 15).reverse().map((m) => m.content));

      const seen: string[] = [];
      let added: Memory | undefined;
      for await (const memory of lister.memories.list({ limit: 10 })) {
        seen.push(memory.id);
        // newer than every page the walk has still to read: by offset, the pages after would each repeat one
        if (seen.length === 1) added = await lister.memories.create({ content: "added during the walk" });
      }
      expect(seen).toEqual(created.map((m) => m.id).reverse());
      await lister.memories.delete(added!.id);
    });
  });

  // The server is still gaining these routes; enable each test as its route lands (CONTRACT.md shapes).
  describe("operations the server does not serve yet", () => {
    it("search finds a memory by meaning, with relevance_score equal to score, and filters", async () => {
      const searcher = clientFor((await suite.server.newUser()).key);
      const tea = await searcher.memories.create({ content: "I prefer green tea in the morning", type: "preference" });
      await searcher.memories.create({ content: "My dog is called Rex", type: "observation" });
      const found = await searcher.memories.search({ query: "which tea do I like?", limit: 5 });
      expect(found.total).toBeGreaterThanOrEqual(1);
      expect(found.results.map((result) => result.id)).toContain(tea.id);
      for (const result of found.results) expect(result.relevance_score).toBe(result.score);
      const typed = await searcher.memories.search({ query: "tea", type: "observation" });
      expect(typed.results.map((result) => result.type)).toEqual(["observation"]);
      const future = await searcher.memories.search({ query: "tea", from_date: new Date(Date.now() + 86_400_000) });
      expect(future.results).toEqual([]);
    });

    it("search takes a query longer than a URL holds; list and search match a tag that holds a comma", async () => {
      const searcher = clientFor((await suite.server.newUser()).key);
      const comma = await searcher.memories.create({ content: "tea, green and black", tags: ["a,b", "c"] });
      await searcher.memories.create({ content: "tea, but tagged apart", tags: ["a", "b"] });
      const long = await searcher.memories.search({ query: "tea ".repeat(5000) });
      expect(long.total).toBe(2);
      expect((await searcher.memories.list({ tags: ["a,b"] })).memories.map((m) => m.id)).toEqual([comma.id]);
      expect((await searcher.memories.list({ tags: ["a,b"], filter: { tags: ["c"] } })).memories.map((m) => m.id)).toEqual([comma.id]);
      expect((await searcher.memories.search({ query: "tea", tags: ["a,b"] })).results.map((r) => r.id)).toEqual([comma.id]);
      expect((await searcher.memories.search({ query: "tea", tags: ["c"], filter: { tags: ["a"] } })).results).toEqual([]);
    });

    it("search and recall take a filter with metadata conditions", async () => {
      const filterer = clientFor((await suite.server.newUser()).key);
      const work = await filterer.memories.create({ content: "Green tea with the apollo team", metadata: { project: "apollo", priority: 3 } });
      await filterer.memories.create({ content: "Green tea at home", metadata: { project: "home", priority: 1 } });
      const found = await filterer.memories.search({ query: "green tea", filter: { metadata: [{ path: "project", eq: "apollo" }] } });
      expect(found.results.map((result) => result.id)).toEqual([work.id]);
      const recalled = await filterer.memories.recall({ query: "green tea", filter: { metadata: [{ path: "priority", gte: 2 }] } });
      expect(recalled.results.map((result) => result.id)).toEqual([work.id]);
      const bad = await rejection(filterer.memories.search({ query: "tea", filter: { metadata: [{ path: "" }] } }));
      expect(bad).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    });

    it("recall answers with results, total and query_type, and relevance_score equal to relevance", async () => {
      const recaller = clientFor((await suite.server.newUser()).key);
      const tea = await recaller.memories.create({ content: "I prefer green tea in the morning", type: "preference" });
      const recalled = await recaller.memories.recall({ query: "what do I drink in the morning?", limit: 5 });
      expect(typeof recalled.query_type).toBe("string");
      expect(recalled.results.map((result) => result.id)).toContain(tea.id);
      for (const result of recalled.results) expect(result.relevance_score).toBe(result.relevance);
    });

    it("batchCreate stores 250 memories (three requests), the results in input order", async () => {
      const batcher = clientFor((await suite.server.newUser()).key);
      const inputs = Array.from({ length: 250 }, (_, i) => ({ content: `item ${i}`, tags: ["batch"] }));
      const result = await batcher.memories.batchCreate(inputs);
      expect(result.summary).toEqual({ total: 250, successful: 250, failed: 0 });
      expect(new Set(result.results.map((item) => item.id)).size).toBe(250);
      for (const i of [0, 99, 100, 249]) {
        expect((await batcher.memories.get(result.results[i]!.id!)).content).toBe(`item ${i}`);
      }
      expect((await batcher.memories.list({ tags: ["batch"] })).total).toBe(250);
    });

    it("threads: create, list, get with memories, update, delete with and without its memories", async () => {
      const owner = clientFor((await suite.server.newUser()).key);
      const thread = await owner.threads.create({ title: "Trip to Japan", description: "planning", metadata: { year: 2025 } });
      expect(thread).toMatchObject({ id: expect.stringMatching(UUID), title: "Trip to Japan", status: "active" });
      const inThread = await owner.memories.create({ content: "Book the ryokan", thread_id: thread.id });
      expect((await owner.threads.list()).threads.map((t) => t.id)).toContain(thread.id);
      const { thread: fetched } = await owner.threads.get(thread.id, { include_memories: true, limit: 10 });
      expect(fetched.memories?.map((m) => m.id)).toEqual([inThread.id]);
      expect(await owner.threads.update(thread.id, { status: "completed" })).toMatchObject({ status: "completed" });
      expect((await owner.threads.list({ status: "completed" })).threads.map((t) => t.id)).toEqual([thread.id]);
      await owner.threads.delete(thread.id);
      expect((await owner.memories.get(inThread.id)).thread_id).toBeNull();
      expect((await rejection(owner.threads.get(thread.id))).code).toBe("NOT_FOUND");

      const second = await owner.threads.create({ title: "Scratch" });
      const doomed = await owner.memories.create({ content: "goes with the thread", thread_id: second.id });
      await owner.threads.delete(second.id, { delete_memories: true });
      expect((await rejection(owner.memories.get(doomed.id))).code).toBe("NOT_FOUND");
    });

    it("a tiny rate limit ends in RATE_LIMIT_EXCEEDED after maxRetries retries on the backoff schedule", async () => {
      const limited = await startTestServer({ RATE_LIMIT_MAX: "2", RATE_LIMIT_WINDOW_SECONDS: "60" });
      try {
        const { key } = await limited.newUser();
        const delays: number[] = [];
        const statuses: number[] = [];
        // The server's Retry-After (up to the 60 s window) would rightly stretch every wait; hiding it and
        // X-RateLimit-Reset shows the backoff schedule, while the unit tests cover honouring them.
        const withoutWaitHints = async (url: string, init: RequestInit) => {
          const response = await fetch(url, init);
          const headers = new Headers(response.headers);
          headers.delete("retry-after");
          headers.delete("x-ratelimit-reset");
          return new Response(await response.arrayBuffer(), { status: response.status, headers });
        };
        const client = new MemoryClient({
          apiKey: key,
          baseUrl: limited.url,
          retryDelay: 20,
          fetch: withoutWaitHints,
          hooks: {
            onResponse: (event) => void statuses.push(event.status),
            onRetry: (event) => void delays.push(event.delayMs),
          },
        });
        await client.memories.list();
        await client.memories.list();
        const error = await rejection(client.memories.list());
        expect(error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", status: 429, attempts: 4 });
        expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
        delays.forEach((delay, n) => {
          expect(delay).toBeGreaterThanOrEqual(0.8 * 20 * 2 ** n);
          expect(delay).toBeLessThanOrEqual(1.2 * 20 * 2 ** n);
        });
        expect(delays).toHaveLength(3);
      } finally {
        await limited.close();
      }
    });
  });

  describe("records.export and records.import", () => {
    it("exports a user's threads and memories, and imports them into another account's empty store idempotently", async () => {
      const owner = clientFor((await suite.server.newUser()).key);
      const thread = await owner.threads.create({ title: "Trip" });
      const memory = await owner.memories.create({ content: "Flight on May 3", thread_id: thread.id, tags: ["travel"] });
      const records = await owner.records.export({ embeddings: true });
      expect(records.map((record) => [record.kind, record.id])).toEqual([
        ["thread", thread.id],
        ["memory", memory.id],
      ]);
      expect(records[1]).toMatchObject({ content: "Flight on May 3", embedding: { embedder: expect.any(String), vector: expect.any(String) } });

      // the ids are the owner's: in another account the lines fail; without them, they are that account's own
      const other = clientFor((await suite.server.newUser()).key);
      const refused = await other.records.import(records);
      expect(refused).toMatchObject({ created: 0, failed: 2 });
      expect(refused.results[0]!.error!.message).toMatch(/^id is in use/);
      const plain = await other.records.import([{ content: "A plain note", tags: ["x"] }]);
      expect(plain).toMatchObject({ created: 1, failed: 0, results: [{ line: 1, kind: "memory", status: "created" }] });

      const again = await owner.records.import(records);
      expect(again).toMatchObject({ created: 0, updated: 0, skipped: 2, failed: 0 });
    });

    // a record without an id was stored anew by each attempt: twice when the first answer was lost (helper-26)
    it("stores records without an id once when the response to an import is lost and the client retries", async () => {
      const importer = await suite.server.newUser();
      const proxy = await responseLosingProxy(suite.server.url);
      try {
        const viaProxy = new MemoryClient({ apiKey: importer.key, baseUrl: proxy.url, retryDelay: 10 });
        const result = await viaProxy.records.import([{ content: "imported once", tags: ["lost-import"] }, { content: "and so was I", tags: ["lost-import"] }]);
        expect(result.results.map((line) => line.status)).toEqual(["skipped", "skipped"]);
        const stored = (await importer.api.get("/api/v1/memory?tags=lost-import")).body;
        expect(stored.total).toBe(2);
        expect(stored.memories.map((m: { id: string }) => m.id).sort()).toEqual(result.results.map((line) => line.id).sort());
      } finally {
        await proxy.close();
      }
    });
  });

  describe("authentication", () => {
    it("a wrong key is INVALID_API_KEY at once, without a retry", async () => {
      const requests: number[] = [];
      const intruder = clientFor("mem_not_a_real_key", { hooks: { onRequest: (event) => void requests.push(event.attempt) } });
      const error = await rejection(intruder.memories.list());
      expect(error).toMatchObject({ code: "INVALID_API_KEY", status: 401, attempts: 1 });
      expect(error.requestId).toMatch(UUID);
      expect(requests).toEqual([1]);
    });

    it("a revoked key is INVALID_API_KEY too", async () => {
      const revoked = await suite.server.newUser();
      await keyAdmin(suite.server.app.services).revoke(revoked.keyId);
      expect((await rejection(clientFor(revoked.key).memories.get("00000000-0000-4000-8000-000000000000"))).code).toBe(
        "INVALID_API_KEY",
      );
    });
  });
});
