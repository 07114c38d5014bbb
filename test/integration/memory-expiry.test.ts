import { describe, expect, it } from "vitest";
import { ExpirySweeper } from "../../src/domain/expiry-sweeper.ts";
import { MAX_TTL_SECONDS } from "../../src/domain/expiry.ts";
import { ListTotals } from "../../src/domain/list-totals.ts";
import { createLogger } from "../../src/logger.ts";
import { callTool, httpConnect } from "../support/mcp.ts";
import { databaseUnavailable, serverWithUser, type TestUser } from "../support/server.ts";
import { ISO } from "../support/wire.ts";

const FIELDS = "id content expiresAt";
const CREATE = `mutation ($input: CreateMemoryInput!) { createMemory(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation ($id: ID!, $input: UpdateMemoryInput!) { updateMemory(id: $id, input: $input) { ${FIELDS} } }`;
const REPLACE = `mutation ($id: ID!, $input: ReplaceMemoryInput!) { replaceMemory(id: $id, input: $input) { ${FIELDS} } }`;
const BATCH = `mutation ($items: [CreateMemoryInput!]!) {
  batchCreateMemories(items: $items) { results { success memory { ${FIELDS} } error { code message field } } }
}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `iso` has passed (by a margin for clocks that tick in milliseconds). */
const until = (iso: string) => sleep(Math.max(0, Date.parse(iso) - Date.now() + 50));
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

describe.skipIf(databaseUnavailable())("memory expiry", () => {
  // the sweeper sweeps when the tests say so (and once at start-up)
  const suite = serverWithUser({ EXPIRY_SWEEP_SECONDS: "86400" });
  const rest = (user: TestUser = suite.user) => user.api;
  const gql = async <T>(query: string, variables: Record<string, unknown>, user: TestUser = suite.user) => {
    const res = await user.api.graphql<T>(query, variables);
    return res.body;
  };

  describe("setting it (REST)", () => {
    it("takes ttl_seconds on create and answers the instant as expires_at", async () => {
      const before = Date.now();
      const res = await rest().post("/api/v1/memory", { content: "parking spot 42", ttl_seconds: 3600 });
      expect(res.status).toBe(201);
      expect(res.body.expires_at).toMatch(ISO);
      const at = Date.parse(res.body.expires_at);
      expect(at).toBeGreaterThanOrEqual(before + 3600_000 - 1);
      expect(at).toBeLessThanOrEqual(Date.now() + 3600_000 + 1);
      expect((await rest().get(`/api/v1/memories/${res.body.id}`)).body.expires_at).toBe(res.body.expires_at);
    });

    // it was dated from the request's check, a few milliseconds before the write dated the memory (outside probe)
    it("dates ttl_seconds from the write's own time: expires_at is created_at or updated_at plus exactly that", async () => {
      const gap = (memory: { expires_at: string }, from: string) => Date.parse(memory.expires_at) - Date.parse(from);
      const created = (await rest().post("/api/v1/memory", { content: "exactly an hour", ttl_seconds: 3600 })).body;
      expect(gap(created, created.created_at)).toBe(3_600_000);
      const patched = (await rest().patch(`/api/v1/memories/${created.id}`, { ttl_seconds: 60 })).body;
      expect(gap(patched, patched.updated_at)).toBe(60_000);
      expect(patched.updated_at > created.updated_at).toBe(true);
      const replaced = (await rest().put(`/api/v1/memories/${created.id}`, { content: "exactly two minutes", ttl_seconds: 120 })).body;
      expect(gap(replaced, replaced.updated_at)).toBe(120_000);
      const batch = (await rest().post("/api/v1/memory/batch", [{ content: "one in a batch", ttl_seconds: 30 }])).body;
      const stored = (await rest().get(`/api/v1/memories/${batch.results[0].id}`)).body;
      expect(gap(stored, stored.created_at)).toBe(30_000);
      const viaGraphql = await gql<{ createMemory: { id: string; expiresAt: string } }>(CREATE, { input: { content: "by GraphQL", ttlSeconds: 90 } });
      const shown = (await rest().get(`/api/v1/memories/${viaGraphql.data!.createMemory.id}`)).body;
      expect(gap(shown, shown.created_at)).toBe(90_000);
    });

    it("takes expires_at in any zone and answers it in UTC with milliseconds; none is null", async () => {
      const later = new Date(Date.now() + 86_400_000);
      later.setUTCMilliseconds(0);
      const zoned = later.toISOString().replace(/\.000Z$/, "+00:00");
      const res = await rest().post("/api/v1/memory", { content: "dentist on Friday", expires_at: zoned });
      expect(res.status).toBe(201);
      expect(res.body.expires_at).toBe(later.toISOString());
      const plain = await rest().post("/api/v1/memory", { content: "no end" });
      expect(plain.body.expires_at).toBeNull();
    });

    it("PATCH sets, moves and (with expires_at: null) clears it; fields not sent keep it", async () => {
      const { id } = (await rest().post("/api/v1/memory", { content: "patch my expiry" })).body;
      const set = await rest().patch(`/api/v1/memories/${id}`, { ttl_seconds: 600 });
      expect(set.status).toBe(200);
      expect(set.body.expires_at).toMatch(ISO);
      const kept = await rest().patch(`/api/v1/memories/${id}`, { tags: ["x"] });
      expect(kept.body.expires_at).toBe(set.body.expires_at);
      const moved = await rest().patch(`/api/v1/memories/${id}`, { expires_at: inSeconds(7200) });
      expect(Date.parse(moved.body.expires_at)).toBeGreaterThan(Date.parse(set.body.expires_at));
      const cleared = await rest().patch(`/api/v1/memories/${id}`, { expires_at: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.expires_at).toBeNull();
    });

    it("PUT replaces it like any field: left out, the memory no longer expires", async () => {
      const { id } = (await rest().post("/api/v1/memory", { content: "put me", ttl_seconds: 600 })).body;
      const replaced = await rest().put(`/api/v1/memories/${id}`, { content: "put again" });
      expect(replaced.body.expires_at).toBeNull();
      const withTtl = await rest().put(`/api/v1/memories/${id}`, { content: "put again", ttl_seconds: 60 });
      expect(withTtl.body.expires_at).toMatch(ISO);
    });

    it("checks each batch item's expiry on its own", async () => {
      const res = await rest().post("/api/v1/memory/batch", [
        { content: "batch with ttl", ttl_seconds: 60 },
        { content: "batch in the past", expires_at: "2001-01-01T00:00:00Z" },
        { content: "batch with both", ttl_seconds: 60, expires_at: inSeconds(60) },
      ]);
      expect(res.status).toBe(200);
      expect(res.body.summary).toEqual({ total: 3, successful: 1, failed: 2 });
      expect(res.body.results[1].error.message).toMatch(/^expires_at must be in the future/);
      expect(res.body.results[2].error.message).toMatch(/^expires_at and ttl_seconds cannot both be given/);
      const stored = await rest().get(`/api/v1/memories/${res.body.results[0].id}`);
      expect(stored.body.expires_at).toMatch(ISO);
    });
  });

  describe("setting it (MCP)", () => {
    it("remember and update_memory take ttl_seconds and expires_at, with the REST rules", async () => {
      const client = await httpConnect(suite.server.url)(suite.user.key);
      try {
        const remembered = await callTool(client, "remember", { content: "gate code 4412 for tonight", ttl_seconds: 3600 });
        expect(remembered.isError).toBe(false);
        expect(remembered.body.expires_at).toMatch(ISO);
        const cleared = await callTool(client, "update_memory", { id: remembered.body.id, expires_at: null });
        expect(cleared.body.expires_at).toBeNull();
        const both = await callTool(client, "remember", { content: "x", ttl_seconds: 60, expires_at: inSeconds(60) });
        expect(both).toEqual({
          isError: true,
          body: { error: { code: "VALIDATION_ERROR", message: expect.stringMatching(/^expires_at and ttl_seconds cannot both be given/) } },
        });
      } finally {
        await client.close();
      }
    });
  });

  it("takes expires_at and ttl_seconds both null as no expiry, said twice (REST and GraphQL)", async () => {
    const { id } = (await rest().post("/api/v1/memory", { content: "until further notice", ttl_seconds: 3600 })).body as { id: string };
    const cleared = await rest().patch(`/api/v1/memories/${id}`, { expires_at: null, ttl_seconds: null });
    expect([cleared.status, cleared.body.expires_at]).toEqual([200, null]);
    await rest().patch(`/api/v1/memories/${id}`, { ttl_seconds: 3600 });
    const updated = await gql<{ updateMemory: { expiresAt: string | null } }>(UPDATE, { id, input: { expiresAt: null, ttlSeconds: null } });
    expect(updated.data!.updateMemory.expiresAt).toBeNull();
  });

  describe("refusing what cannot be meant (400)", () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["both fields", { expires_at: inSeconds(60), ttl_seconds: 60 }, /^expires_at and ttl_seconds cannot both be given/],
      ["a time past", { expires_at: "2020-01-01T00:00:00.000Z" }, /^expires_at must be in the future/],
      ["not a date", { expires_at: "next tuesday" }, /^expires_at must be an ISO 8601 timestamp/],
      ["ttl 0", { ttl_seconds: 0 }, /^ttl_seconds must be a whole number of seconds from 1 to 315360000/],
      ["a negative ttl", { ttl_seconds: -5 }, /^ttl_seconds must be/],
      ["a fractional ttl", { ttl_seconds: 1.5 }, /^ttl_seconds must be a whole number/],
      ["a ttl as text", { ttl_seconds: "60" }, /^ttl_seconds must be/],
      ["a ttl beyond ten years", { ttl_seconds: MAX_TTL_SECONDS + 1 }, /^ttl_seconds must be/],
      // GraphQL's Int stops at 2^31 - 1, before the domain's check: a REST caller is still told the field's bounds
      ["a ttl beyond 32 bits", { ttl_seconds: 3_000_000_000 }, /^ttl_seconds must be a whole number of seconds from 1 to 315360000 \(ten years\)$/],
      ["a ttl of 1e20", { ttl_seconds: 1e20 }, /^ttl_seconds must be a whole number of seconds from 1 to 315360000 \(ten years\)$/],
      ["an instant beyond ten years", { expires_at: "2199-01-01T00:00:00Z" }, /^expires_at must be at most ten years ahead/],
    ];
    for (const [what, fields, message] of cases) {
      it(`refuses ${what} on create and PATCH`, async () => {
        const created = await rest().post("/api/v1/memory", { content: "refused", ...fields });
        expect(created.status).toBe(400);
        expect(created.body.error).toEqual({ code: "VALIDATION_ERROR", message: expect.stringMatching(message) });
        const { id } = (await rest().post("/api/v1/memory", { content: "patched" })).body;
        const patched = await rest().patch(`/api/v1/memories/${id}`, fields);
        expect(patched.status).toBe(400);
        expect(patched.body.error.message).toMatch(message);
      });
    }

    it("refuses them over GraphQL with VALIDATION_ERROR naming the field", async () => {
      const both = await gql(CREATE, { input: { content: "x", expiresAt: inSeconds(60), ttlSeconds: 60 } });
      expect(both.errors?.[0]).toMatchObject({ extensions: { code: "VALIDATION_ERROR" } });
      expect(both.errors?.[0]?.message).toMatch(/^expiresAt and ttlSeconds cannot both be given/);
      const past = await gql(CREATE, { input: { content: "x", expiresAt: "2020-01-01T00:00:00Z" } });
      expect(past.errors?.[0]?.message).toMatch(/^expiresAt must be in the future/);
      const zero = await gql(CREATE, { input: { content: "x", ttlSeconds: 0 } });
      expect(zero.errors?.[0]).toMatchObject({ extensions: { code: "VALIDATION_ERROR" } });
    });
  });

  describe("setting it (GraphQL)", () => {
    it("createMemory, updateMemory, replaceMemory and batchCreateMemories take expiresAt or ttlSeconds; Memory.expiresAt shows it", async () => {
      const created = await gql<{ createMemory: { id: string; expiresAt: string | null } }>(CREATE, {
        input: { content: "graphql ttl", ttlSeconds: 120 },
      });
      expect(created.errors).toBeUndefined();
      const { id, expiresAt } = created.data!.createMemory;
      expect(expiresAt).toMatch(ISO);
      const at = inSeconds(3600);
      const updated = await gql<{ updateMemory: { expiresAt: string | null } }>(UPDATE, { id, input: { expiresAt: at } });
      expect(updated.data!.updateMemory.expiresAt).toBe(at);
      const cleared = await gql<{ updateMemory: { expiresAt: string | null } }>(UPDATE, { id, input: { expiresAt: null } });
      expect(cleared.data!.updateMemory.expiresAt).toBeNull();
      const replaced = await gql<{ replaceMemory: { expiresAt: string | null } }>(REPLACE, { id, input: { content: "r", ttlSeconds: 30 } });
      expect(replaced.data!.replaceMemory.expiresAt).toMatch(ISO);
      const batch = await gql<{ batchCreateMemories: { results: { success: boolean; memory: { expiresAt: string } | null; error: { field: string } | null }[] } }>(
        BATCH,
        { items: [{ content: "b1", ttlSeconds: 30 }, { content: "b2", ttlSeconds: -1 }] },
      );
      const [first, second] = batch.data!.batchCreateMemories.results;
      expect(first!.memory!.expiresAt).toMatch(ISO);
      expect(second).toMatchObject({ success: false, error: { field: "ttlSeconds" } });
    });
  });

  describe("an expired memory is gone from every read at once", () => {
    it("get, list, totals, search, recall (hybrid, thread, profile), threads and the legacy listing; writes to it are 404", async () => {
      const user = await suite.server.newUser();
      const other = await suite.server.newUser();
      const api = user.api;
      const thread = (await api.post("/api/v1/threads", { title: "weekend" })).body.id as string;
      const expiresAt = inSeconds(4);
      const doomed = [
        (await api.post("/api/v1/memory", { content: "zanzibar ferry ticket code 7781", thread_id: thread, expires_at: expiresAt })).body,
        (await api.post("/api/v1/memory", { content: "I prefer zanzibar spice tea", type: "preference", expires_at: expiresAt })).body,
      ];
      const kept = (await api.post("/api/v1/memory", { content: "zanzibar trip is in June", thread_id: thread })).body;
      const legacy = await api.post("/api/v1/memories", { workspaceId: "w1", userId: "u", content: "zanzibar legacy note" });
      expect(legacy.status).toBe(201);
      await api.patch(`/api/v1/memories/${legacy.body.id}`, { expires_at: expiresAt });
      const othersMemory = (await other.api.post("/api/v1/memory", { content: "zanzibar for the other user", expires_at: inSeconds(3600) })).body;
      const doomedIds = [...doomed.map((m) => m.id as string), legacy.body.id as string];

      const reads = async () => {
        const list = (await api.get("/api/v1/memory?limit=100")).body;
        const threadList = (await api.get(`/api/v1/memory?thread_id=${thread}`)).body;
        const filtered = (await api.get(`/api/v1/memory?filter=${encodeURIComponent(JSON.stringify({ not: { type: "task" } }))}`)).body;
        const search = (await api.get("/api/v1/memory/search?query=zanzibar")).body;
        const recall = (await api.post("/api/v1/memory/recall", { query: "zanzibar ferry ticket" })).body;
        const threadRecall = (await api.post("/api/v1/memory/recall", { query: "zanzibar ferry", thread_id: thread })).body;
        const profile = (await api.post("/api/v1/memory/recall", { query: "what do I like?" })).body;
        const threadView = (await api.get(`/api/v1/threads/${thread}?include_memories=true`)).body.thread;
        const legacyList = (await api.get("/api/v1/memories?workspaceId=w1")).body;
        const graph = (
          await gql<{
            memories: { total: number; items: { id: string }[] };
            memoriesConnection: { edges: { node: { id: string } }[] };
            searchMemories: { results: { id: string }[] };
            recall: { results: { id: string }[] };
          }>(
            `{ memories(limit: 100) { total items { id } } memoriesConnection(first: 100) { edges { node { id } } }
               searchMemories(query: "zanzibar") { results { id } } recall(query: "zanzibar ferry ticket") { results { id } } }`,
            {},
            user,
          )
        ).data!;
        const ids = (items: { id: string }[]) => items.map((m) => m.id);
        return {
          list: ids(list.memories),
          listTotal: list.total as number,
          threadList: ids(threadList.memories),
          threadTotal: threadList.total as number,
          filteredTotal: filtered.total as number,
          search: ids(search.results),
          recall: ids(recall.results),
          threadRecall: ids(threadRecall.results),
          profile: ids(profile.results),
          threadMemories: ids(threadView.memories),
          threadCount: threadView.memory_count as number,
          legacy: (legacyList.memories as { id: string }[]).map((m) => m.id),
          graphList: ids(graph.memories.items),
          graphTotal: graph.memories.total,
          graphConnection: graph.memoriesConnection.edges.map((e) => e.node.id),
          graphSearch: ids(graph.searchMemories.results),
          graphRecall: ids(graph.recall.results),
        };
      };

      // before: everything shows them (and the list totals and recall's copy of the terms are cached meanwhile)
      await suite.server.app.services.termIndex?.of(user.userId);
      for (let i = 0; i < 50 && suite.server.app.services.termIndex && !(await suite.server.app.services.termIndex.of(user.userId)); i++) {
        await sleep(20);
      }
      const before = await reads();
      expect(Date.now(), "the reads before the expiry took longer than the time left to it").toBeLessThan(Date.parse(expiresAt));
      expect(before.list).toEqual(expect.arrayContaining([...doomedIds, kept.id]));
      expect(before.listTotal).toBe(4);
      expect(before.threadTotal).toBe(2);
      expect(before.filteredTotal).toBe(4);
      expect(before.search).toContain(doomed[0].id);
      expect(before.recall).toContain(doomed[0].id);
      expect(before.threadRecall).toContain(doomed[0].id);
      expect(before.profile).toEqual([doomed[1].id]);
      expect(before.threadMemories).toHaveLength(2);
      expect(before.threadCount).toBe(2);
      expect(before.legacy).toEqual([legacy.body.id]);
      expect(before.graphTotal).toBe(4);
      expect(before.graphSearch).toContain(doomed[0].id);

      await until(expiresAt);

      const after = await reads();
      for (const id of doomedIds) {
        for (const [name, ids] of Object.entries(after)) {
          if (Array.isArray(ids)) expect(ids, name).not.toContain(id);
        }
        expect((await api.get(`/api/v1/memories/${id}`)).status).toBe(404);
        expect((await gql<{ memory: null }>("query ($id: ID!) { memory(id: $id) { id } }", { id }, user)).data!.memory).toBeNull();
        expect((await api.patch(`/api/v1/memories/${id}`, { expires_at: null })).status).toBe(404);
        expect((await api.delete(`/api/v1/memories/${id}`)).status).toBe(404);
      }
      expect(after.list).toEqual([kept.id]);
      expect(after.listTotal).toBe(1);
      expect(after.threadTotal).toBe(1);
      expect(after.filteredTotal).toBe(1);
      expect(after.graphTotal).toBe(1);
      expect(after.threadCount).toBe(1);
      expect(after.threadMemories).toEqual([kept.id]);
      expect(after.search).toEqual([kept.id]);
      expect(after.recall).toContain(kept.id);
      expect(after.threadRecall).toEqual([kept.id]);
      // no preference left: the profile path gives way to the hybrid ranking
      expect(after.profile).not.toContain(doomed[1].id);
      expect(after.legacy).toEqual([]);

      // the other user's memory is untouched by this user's expiries, and this user cannot reach it
      expect((await other.api.get(`/api/v1/memories/${othersMemory.id}`)).status).toBe(200);
      expect((await api.get(`/api/v1/memories/${othersMemory.id}`)).status).toBe(404);
      expect((await api.patch(`/api/v1/memories/${othersMemory.id}`, { ttl_seconds: 1 })).status).toBe(404);
      expect((await other.api.get("/api/v1/memory")).body.total).toBe(1);
    });

    it("is created anew by an import of its id, as a deleted memory is, before the sweeper deletes it too", async () => {
      const user = await suite.server.newUser();
      const gone = (await user.api.post("/api/v1/memory", { content: "the wifi password is hunter2", ttl_seconds: 1 })).body;
      await until(gone.expires_at as string);
      expect((await user.api.get(`/api/v1/memories/${gone.id}`)).status).toBe(404);
      const line = JSON.stringify({ id: gone.id, content: "the wifi password is hunter3" });
      const back = await user.api.post("/api/v1/import", undefined, { raw: `${line}\n`, headers: { "content-type": "application/x-ndjson" } });
      expect(back.body.results[0]).toMatchObject({ status: "created", id: gone.id });
      expect((await user.api.get(`/api/v1/memories/${gone.id}`)).body).toMatchObject({ content: "the wifi password is hunter3", expires_at: null });
    });

    it("is no duplicate: a create with dedupe stores a new memory once the same one expired", async () => {
      const user = await suite.server.newUser();
      const memory = { content: "the gate code is 4471", dedupe: true };
      const first = await user.api.post("/api/v1/memory", { ...memory, ttl_seconds: 1 });
      expect(first.status).toBe(201);
      const again = await user.api.post("/api/v1/memory", { ...memory, ttl_seconds: 1 });
      expect([again.status, again.body.id, again.body.deduplicated]).toEqual([200, first.body.id, true]);
      await until(first.body.expires_at as string);
      const afterExpiry = await user.api.post("/api/v1/memory", memory);
      expect(afterExpiry.status).toBe(201);
      expect(afterExpiry.body.id).not.toBe(first.body.id);
      expect(afterExpiry.body.deduplicated).toBeUndefined();
    });
  });

    it("goes with its thread as the sweep would take it, not released from it as a change (events and history)", async () => {
      const user = await suite.server.newUser();
      const thread = (await user.api.post("/api/v1/threads", { title: "errands" })).body.id as string;
      const expired = (await user.api.post("/api/v1/memory", { content: "the locker code is 1234", thread_id: thread, ttl_seconds: 1 })).body;
      const live = (await user.api.post("/api/v1/memory", { content: "buy oat milk", thread_id: thread })).body.id as string;
      const feed = suite.server.app.services.events.subscribe(user.userId)[Symbol.asyncIterator]();
      // listening before the delete (a feed subscribes at its first read)
      const heard: string[] = [];
      const listening = (async () => {
        for (let next = await feed.next(); !next.done; next = await feed.next()) {
          // the creates' own events may come after the feed subscribed: the relay publishes them after their commit
          if (next.value.type.endsWith(".created")) continue;
          heard.push(`${next.value.type} ${next.value.objectId}`);
          if (next.value.type === "thread.deleted") return;
        }
      })();
      await until(expired.expires_at as string);
      expect((await user.api.delete(`/api/v1/threads/${thread}`)).status).toBe(200);
      await listening;
      await feed.return?.();
      // one statement deletes the one and releases the other: their events come in either order, the thread's last
      expect(heard.slice(0, 2).sort()).toEqual([`memory.deleted ${expired.id}`, `memory.updated ${live}`].sort());
      expect(heard.slice(2)).toEqual([`thread.deleted ${thread}`]);
      expect((await user.api.get(`/api/v1/memories/${live}`)).body.thread_id).toBeNull();
      const history = await user.api.graphql<{ memoryHistory: { items: { action: string; keyId: string | null }[] } }>(
        "query ($id: ID!) { memoryHistory(id: $id) { items { action keyId } } }",
        { id: expired.id },
      );
      expect(history.body.data!.memoryHistory.items.map((item) => item.action)).toEqual(["deleted", "created"]);
      expect(history.body.data!.memoryHistory.items[0]!.keyId).toBeNull();
    });

  describe("the sweeper", () => {
    it("deletes expired memories from the database, their terms and the vector index, with their event and history", async () => {
      const { services, db } = { services: suite.server.app.services, db: suite.server.app.services.db };
      const user = await suite.server.newUser();
      const other = await suite.server.newUser();
      const expiresAt = inSeconds(2);
      const content = "quokka selfie spot on Rottnest";
      const doomed = (await user.api.post("/api/v1/memory", { content, expires_at: expiresAt })).body.id as string;
      const kept = (await user.api.post("/api/v1/memory", { content: `${content} forever` })).body.id as string;
      const othersKept = (await other.api.post("/api/v1/memory", { content, ttl_seconds: 3600 })).body.id as string;
      const [vector] = await services.embedder.embed([content]);
      const nearest = async () => (await services.index.search(services.embedder.id, vector!, { userId: user.userId }, 10)).map((hit) => hit.id);
      await services.indexer.flush([doomed, kept]);
      expect(await nearest()).toContain(doomed);

      // not yet due: nothing of this user's goes
      await services.expiry.sweep();
      expect(await db.sql.query("SELECT 1 FROM memories WHERE id = $1::uuid", [doomed])).toHaveLength(1);

      await until(expiresAt);
      expect(await services.expiry.sweep()).toBeGreaterThanOrEqual(1);
      expect(await db.sql.query("SELECT 1 FROM memories WHERE id = $1::uuid", [doomed])).toHaveLength(0);
      expect(await db.sql.query("SELECT 1 FROM memory_terms WHERE memory_id = $1::uuid", [doomed])).toHaveLength(0);
      expect(await nearest()).not.toContain(doomed);
      expect(await nearest()).toContain(kept);
      for (const id of [kept, othersKept]) expect(await db.sql.query("SELECT 1 FROM memories WHERE id = $1::uuid", [id])).toHaveLength(1);

      const history = await user.api.graphql<{ memoryHistory: { items: { action: string; keyId: string | null }[] } }>(
        "query ($id: ID!) { memoryHistory(id: $id) { items { action keyId } } }",
        { id: doomed },
      );
      expect(history.body.data!.memoryHistory.items[0]).toEqual({ action: "deleted", keyId: null });
    });

    it("several sweepers at once delete each expired memory once, without errors", async () => {
      const services = suite.server.app.services;
      const user = await suite.server.newUser();
      const expiresAt = inSeconds(2);
      const items = Array.from({ length: 60 }, (_, i) => ({ content: `short lived ${i}`, expires_at: expiresAt }));
      expect((await user.api.post("/api/v1/memory/batch", items)).body.summary.successful).toBe(60);
      await until(expiresAt);
      const logger = createLogger("silent");
      // as if on three instances: each its own sweeper (and its own caches), on one database
      const sweepers = Array.from(
        { length: 3 },
        () => new ExpirySweeper(services.db, new ListTotals(false), services.indexer, services.relay, logger, 60),
      );
      const counts = await Promise.all(sweepers.map((sweeper) => sweeper.sweep()));
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60);
      const [left] = await services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM memories WHERE user_id = $1::uuid", [user.userId]);
      expect(left!.n).toBe(0);
      // one delete each: one `deleted` version in each memory's history
      const [versions] = await services.db.sql.query<{ memories: number; deletes: number }>(
        "SELECT count(DISTINCT memory_id)::int AS memories, count(*)::int AS deletes FROM memory_versions WHERE user_id = $1::uuid AND action = 'deleted'",
        [user.userId],
      );
      expect(versions).toEqual({ memories: 60, deletes: 60 });
    });
  });
});
