import { describe, expect, it } from "vitest";
import { backfillContentKeys } from "../../src/domain/dedupe.ts";
import { BuiltinEmbedder } from "../../src/embeddings/builtin.ts";
import type { Embedder } from "../../src/embeddings/embedder.ts";
import { createLogger } from "../../src/logger.ts";
import type { TestUser } from "../support/server.ts";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

const total = async (user: TestUser) => (await user.api.get("/api/v1/memory?limit=1")).body.total as number;

const CREATE = /* GraphQL */ `
  mutation Create($input: CreateMemoryInput!) { createMemory(input: $input) { id content deduplicated } }
`;
const BATCH = /* GraphQL */ `
  mutation Batch($items: [CreateMemoryInput!]!, $dedupe: Boolean) {
    batchCreateMemories(items: $items, dedupe: $dedupe) {
      summary { total successful failed }
      results { success deduplicated id memory { id content deduplicated } error { code } }
    }
  }
`;

describe.skipIf(databaseUnavailable())("duplicate guard, asked for per create (DEDUPE=off)", () => {
  const suite = serverWithUser();

  it("stores every copy when not asked to deduplicate", async () => {
    const first = await suite.user.api.post("/api/v1/memory", { content: "plain copies are kept" });
    const second = await suite.user.api.post("/api/v1/memory", { content: "plain copies are kept" });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
    expect(first.body).not.toHaveProperty("deduplicated");
  });

  it("REST: answers the memory already stored, 200 with deduplicated: true, when content differs only in case, width and spacing", async () => {
    const original = await suite.user.api.post("/api/v1/memory", {
      content: "I prefer green tea to coffee",
      type: "preference",
      tags: ["drinks"],
      dedupe: true,
    });
    expect(original.status).toBe(201);
    expect(original.body).not.toHaveProperty("deduplicated");
    const before = await total(suite.user);
    const again = await suite.user.api.post("/api/v1/memory", {
      content: "  i PREFER\tgreen  ｔｅａ to coffee\n",
      type: "Preference",
      tags: ["other"],
      metadata: { source: "retry" },
      dedupe: true,
    });
    expect(again.status).toBe(200);
    // the memory as it was: nothing of the second request is merged into it
    expect(again.body).toEqual({ ...original.body, deduplicated: true });
    expect(await total(suite.user)).toBe(before);
    // nothing was written: the memory's history is its creation alone
    const history = await suite.user.api.get(`/api/v1/memories/${original.body.id}/history`);
    expect(history.body.history.map((version: { action: string }) => version.action)).toEqual(["created"]);
  });

  it("stores a copy whose type or thread differs, or whose words do", async () => {
    const thread = await suite.user.api.post("/api/v1/threads", { title: "Dedupe thread" });
    const base = { content: "Call the bank on Monday", type: "task", dedupe: true };
    const original = await suite.user.api.post("/api/v1/memory", base);
    for (const variant of [
      { ...base, type: "journal" },
      { ...base, type: null },
      { ...base, thread_id: thread.body.id },
      { ...base, content: "Call the bank on Tuesday" },
    ]) {
      const res = await suite.user.api.post("/api/v1/memory", variant);
      expect(res.status, JSON.stringify(variant)).toBe(201);
      expect(res.body.id).not.toBe(original.body.id);
    }
    const inThread = await suite.user.api.post("/api/v1/memory", { ...base, thread_id: thread.body.id });
    expect(inThread.status).toBe(200);
    expect(inThread.body.thread_id).toBe(thread.body.id);
  });

  it("compares structured records by their canonical JSON, and never a record with text", async () => {
    const record = await suite.user.api.post("/api/v1/memory", { content: { dish: "ramen", rating: 5 }, dedupe: true });
    const reordered = await suite.user.api.post("/api/v1/memory", { content: { rating: 5, dish: "ramen" }, dedupe: true });
    expect(reordered.status).toBe(200);
    expect(reordered.body.id).toBe(record.body.id);
    expect(reordered.body.content).toEqual({ dish: "ramen", rating: 5 });
    // values are data: a different case is another record
    expect((await suite.user.api.post("/api/v1/memory", { content: { dish: "RAMEN", rating: 5 }, dedupe: true })).status).toBe(201);
    const asText = await suite.user.api.post("/api/v1/memory", { content: '{"dish":"ramen","rating":5}', dedupe: true });
    expect(asText.status).toBe(201);
  });

  it("does not answer an archived memory: the copy is stored live", async () => {
    const original = await suite.user.api.post("/api/v1/memory", { content: "archived things come back", dedupe: true });
    await suite.user.api.patch(`/api/v1/memories/${original.body.id}`, { is_archived: true });
    const again = await suite.user.api.post("/api/v1/memory", { content: "archived things come back", dedupe: true });
    expect(again.status).toBe(201);
    expect(again.body.is_archived).toBe(false);
  });

  it("answers a create kept for good only with a memory kept for good, and one that expires with the longest-lived", async () => {
    const soon = await suite.user.api.post("/api/v1/memory", { content: "keys are in the drawer", ttl_seconds: 60, dedupe: true });
    // an expiring memory would take the caller's with it: a copy of its own
    const forGood = await suite.user.api.post("/api/v1/memory", { content: "keys are in the drawer", dedupe: true });
    expect([forGood.status, forGood.body.expires_at]).toEqual([201, null]);
    for (const ttl_seconds of [30, 3600]) {
      const expiring = await suite.user.api.post("/api/v1/memory", { content: "keys are in the drawer", ttl_seconds, dedupe: true });
      expect([expiring.status, expiring.body.id]).toEqual([200, forGood.body.id]);
    }
    const other = await suite.server.newUser();
    const first = await other.api.post("/api/v1/memory", { content: "keys are in the drawer", ttl_seconds: 60, dedupe: true });
    const later = await other.api.post("/api/v1/memory", { content: "keys are in the drawer", ttl_seconds: 600, dedupe: true });
    expect([later.status, later.body.id]).toEqual([200, first.body.id]);
    expect(soon.body.id).not.toBe(first.body.id);
    // in one batch: an item kept for good is not answered by an earlier one that expires
    const batch = await suite.user.api.post("/api/v1/memory/batch", [
      { content: "umbrella by the door", ttl_seconds: 60, dedupe: true },
      { content: "umbrella by the door", dedupe: true },
    ]);
    const [expiring, kept] = batch.body.results;
    expect([expiring.success, kept.success, kept.deduplicated, kept.id === expiring.id]).toEqual([true, true, undefined, false]);
  });

  it("follows content changes: a memory rewritten is found by its new content, not its old", async () => {
    const original = await suite.user.api.post("/api/v1/memory", { content: "old words here" });
    await suite.user.api.patch(`/api/v1/memories/${original.body.id}`, { content: "New words here" });
    const byNew = await suite.user.api.post("/api/v1/memory", { content: "new words here", dedupe: true });
    expect(byNew.status).toBe(200);
    expect(byNew.body.id).toBe(original.body.id);
    expect((await suite.user.api.post("/api/v1/memory", { content: "old words here", dedupe: true })).status).toBe(201);
  });

  it("never answers another user's memory, over REST or GraphQL", async () => {
    const other = await suite.server.newUser();
    const mine = await suite.user.api.post("/api/v1/memory", { content: "a secret only I hold", type: "insight" });
    const theirs = await other.api.post("/api/v1/memory", { content: "a secret only I hold", type: "insight", dedupe: true });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    const viaGraphQL = await other.api.graphql(CREATE, { input: { content: "A SECRET only I hold", dedupe: true } });
    expect(viaGraphQL.body.data.createMemory.deduplicated).toBe(false);
    const batch = await other.api.post("/api/v1/memory/batch", { memories: [{ content: "a secret only I hold", type: "insight" }], dedupe: true });
    expect(batch.body.results[0].id).toBe(theirs.body.id);
    // the second user's copy is theirs alone: the first user's create still finds their own
    const again = await suite.user.api.post("/api/v1/memory", { content: "a secret only I hold", type: "insight", dedupe: true });
    expect(again.body.id).toBe(mine.body.id);
  });

  it("refuses a dedupe that is not a boolean", async () => {
    const res = await suite.user.api.post("/api/v1/memory", { content: "x", dedupe: "yes" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.message).toMatch(/^dedupe /);
    const batch = await suite.user.api.post("/api/v1/memory/batch", { memories: [{ content: "x" }], dedupe: 1 });
    expect(batch.status).toBe(400);
    expect(batch.body.error.message).toBe("dedupe must be true or false");
    // dedupe is a create's: an update does not take it
    const memory = await suite.user.api.post("/api/v1/memory", { content: "to patch" });
    expect((await suite.user.api.patch(`/api/v1/memories/${memory.body.id}`, { dedupe: true })).status).toBe(400);
  });

  it("GraphQL: createMemory says deduplicated, and Memory.deduplicated is false outside a create's answer", async () => {
    const first = await suite.user.api.graphql(CREATE, { input: { content: "GraphQL dedupe check", dedupe: true } });
    const second = await suite.user.api.graphql(CREATE, { input: { content: "graphql  dedupe check", dedupe: true } });
    expect(first.body.data.createMemory.deduplicated).toBe(false);
    expect(second.body.data.createMemory).toEqual({ id: first.body.data.createMemory.id, content: "GraphQL dedupe check", deduplicated: true });
    const read = await suite.user.api.graphql(`query ($id: ID!) { memory(id: $id) { deduplicated } }`, { id: first.body.data.createMemory.id });
    expect(read.body.data.memory.deduplicated).toBe(false);
  });

  it("REST batch: each item says whether it was deduplicated, against stored memories and earlier items", async () => {
    const stored = await suite.user.api.post("/api/v1/memory", { content: "batch: already stored" });
    const before = await total(suite.user);
    const res = await suite.user.api.post("/api/v1/memory/batch", {
      dedupe: true,
      memories: [
        { content: "batch: new one" },
        { content: "Batch: new ONE" },
        { content: "batch: already stored" },
        { content: "batch: already stored", dedupe: false },
        { content: "" },
        { content: "batch: another new one" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual({ total: 6, successful: 5, failed: 1 });
    const [a, b, c, d, e, f] = res.body.results;
    expect(a).toEqual({ success: true, id: expect.any(String) });
    expect(b).toEqual({ success: true, id: a.id, deduplicated: true });
    expect(c).toEqual({ success: true, id: stored.body.id, deduplicated: true });
    expect(d).toEqual({ success: true, id: expect.any(String) });
    expect(d.id).not.toBe(stored.body.id);
    expect(e.success).toBe(false);
    expect(f).toEqual({ success: true, id: expect.any(String) });
    expect(await total(suite.user)).toBe(before + 3);
  });

  it("a batch item duplicating an earlier one whose thread is not the user's fails with it", async () => {
    const res = await suite.user.api.post("/api/v1/memory/batch", {
      dedupe: true,
      memories: [
        { content: "filed nowhere", thread_id: "00000000-0000-4000-8000-000000000000" },
        { content: "filed nowhere", thread_id: "00000000-0000-4000-8000-000000000000" },
      ],
    });
    expect(res.body.results.map((r: { error?: { message: string } }) => r.error?.message)).toEqual([
      "thread_id does not name one of your threads",
      "thread_id does not name one of your threads",
    ]);
  });

  it("GraphQL batch: dedupe for every item, an item's own dedupe first", async () => {
    const res = await suite.user.api.graphql(BATCH, {
      dedupe: true,
      items: [{ content: "gql batch item" }, { content: "GQL batch item" }, { content: "gql batch item", dedupe: false }],
    });
    const { summary, results } = res.body.data.batchCreateMemories;
    expect(summary).toEqual({ total: 3, successful: 3, failed: 0 });
    expect(results.map((r: { deduplicated: boolean }) => r.deduplicated)).toEqual([false, true, false]);
    expect(results[1].id).toBe(results[0].id);
    expect(results[1].memory).toEqual({ id: results[0].id, content: "gql batch item", deduplicated: true });
    expect(results[0].memory.deduplicated).toBe(false);
    expect(results[2].id).not.toBe(results[0].id);
  });

  it("Idempotency-Key: a replay answers the first response, 201 or 200, as it was", async () => {
    const body = { content: "idempotent and deduplicated", dedupe: true };
    const first = await suite.user.api.post("/api/v1/memory", body, { headers: { "idempotency-key": "dedupe-1" } });
    const replay = await suite.user.api.post("/api/v1/memory", body, { headers: { "idempotency-key": "dedupe-1" } });
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    const other = await suite.user.api.post("/api/v1/memory", body, { headers: { "idempotency-key": "dedupe-2" } });
    const otherReplay = await suite.user.api.post("/api/v1/memory", body, { headers: { "idempotency-key": "dedupe-2" } });
    expect([other.status, otherReplay.status]).toEqual([200, 200]);
    expect(otherReplay.body).toEqual({ ...first.body, deduplicated: true });
  });

  it("stores one of many identical creates sent at once; the others answer it", async () => {
    const user = await suite.server.newUser();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? user.api.post("/api/v1/memory/batch", { memories: [{ content: "Raced copy" }], dedupe: true })
          : user.api.post("/api/v1/memory", { content: i % 2 ? "raced copy" : "RACED copy ", dedupe: true }),
      ),
    );
    const ids = answers.map((res) => (res.body.results ? res.body.results[0].id : res.body.id));
    expect(new Set(ids).size).toBe(1);
    const singles = answers.filter((res) => !res.body.results);
    expect(singles.every((res) => res.status === 200 || res.status === 201)).toBe(true);
    expect(await total(user)).toBe(1);
  });

  it("finds memories written before the guard once the start-up backfill has made their keys", async () => {
    const { db } = suite.server.app.services;
    const old = await suite.user.api.post("/api/v1/memory", { content: "written before the guard" });
    await db.sql.query("UPDATE memories SET content_key = NULL WHERE id = $1", [old.body.id]);
    expect((await suite.user.api.post("/api/v1/memory", { content: "written before the guard", dedupe: true })).status).toBe(201);
    expect(await backfillContentKeys(db, createLogger("silent"))).toBeGreaterThanOrEqual(1);
    const found = await suite.user.api.post("/api/v1/memory", { content: "WRITTEN before the guard", dedupe: true });
    expect(found.status).toBe(200);
    // the oldest copy answers
    expect(found.body.id).toBe(old.body.id);
    expect(await backfillContentKeys(db, createLogger("silent"))).toBe(0);
  });
});

describe.skipIf(databaseUnavailable())("duplicate guard by default (DEDUPE=exact)", () => {
  const suite = serverWithUser({ DEDUPE: "exact" });

  it("deduplicates creates that do not say, and stores those that say dedupe: false", async () => {
    const first = await suite.user.api.post("/api/v1/memory", { content: "server default rule" });
    const second = await suite.user.api.post("/api/v1/memory", { content: "Server default rule" });
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(second.body.id).toBe(first.body.id);
    const forced = await suite.user.api.post("/api/v1/memory", { content: "server default rule", dedupe: false });
    expect(forced.status).toBe(201);
    const viaGraphQL = await suite.user.api.graphql(CREATE, { input: { content: "server default rule", dedupe: false } });
    expect(viaGraphQL.body.data.createMemory.deduplicated).toBe(false);
    const batch = await suite.user.api.graphql(BATCH, { items: [{ content: "server default rule" }], dedupe: false });
    expect(batch.body.data.batchCreateMemories.results[0].deduplicated).toBe(false);
  });

  it("leaves the deprecated collection route alone: it always stores", async () => {
    const body = { workspaceId: "ws-1", userId: "legacy-user", content: "legacy copy", kind: "note" };
    const first = await suite.user.api.post("/api/v1/memories", body);
    const second = await suite.user.api.post("/api/v1/memories", body);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
  });
});

// the hashed embedder: "Flight to Lisbon on May 3" and "... on 3 May" are 0.98 similar, "My dog/cat is called Rex" 0.72
describe.skipIf(databaseUnavailable())("near duplicates (DEDUPE=near)", () => {
  const suite = serverWithUser({ DEDUPE: "near" });

  it("answers a memory at least DEDUPE_NEAR_SIMILARITY similar, of the same type and thread, and stores one that is not", async () => {
    const first = await suite.user.api.post("/api/v1/memory", { content: "Flight to Lisbon on May 3", type: "task" });
    const near = await suite.user.api.post("/api/v1/memory", { content: "Flight to Lisbon on 3 May", type: "task" });
    expect(near.status).toBe(200);
    expect(near.body).toEqual({ ...first.body, deduplicated: true });
    const otherType = await suite.user.api.post("/api/v1/memory", { content: "Flight to Lisbon on 3 May", type: "journal" });
    expect(otherType.status).toBe(201);
    const dog = await suite.user.api.post("/api/v1/memory", { content: "My dog is called Rex" });
    const cat = await suite.user.api.post("/api/v1/memory", { content: "My cat is called Rex" });
    expect([dog.status, cat.status]).toEqual([201, 201]);
    expect((await suite.user.api.post("/api/v1/memory", { content: "Flight to Lisbon on 3 May", type: "task", dedupe: false })).status).toBe(201);
  });

  it("never answers a record with a text nor a text with a record, however near their vectors", async () => {
    const text = await suite.user.api.post("/api/v1/memory", { content: '{"dose":"5mg","drug":"warfarin"}', type: "med" });
    const record = await suite.user.api.post("/api/v1/memory", { content: { drug: "warfarin", dose: "5mg" }, type: "med" });
    expect([text.status, record.status]).toEqual([201, 201]);
    const again = await suite.user.api.post("/api/v1/memory", { content: { dose: "5mg", drug: "warfarin" }, type: "med" });
    expect([again.status, again.body.id]).toEqual([200, record.body.id]);
  });

  it("GraphQL and batches: near duplicates of stored memories and of earlier items; never another user's", async () => {
    const other = await suite.server.newUser();
    const mine = await suite.user.api.graphql(CREATE, { input: { content: "Dinner with Marta at eight on Friday" } });
    const theirs = await other.api.graphql(CREATE, { input: { content: "Dinner with Marta on Friday at eight" } });
    expect(theirs.body.data.createMemory.deduplicated).toBe(false);
    const again = await suite.user.api.graphql(CREATE, { input: { content: "Dinner with Marta on Friday at eight" } });
    expect(again.body.data.createMemory).toMatchObject({ id: mine.body.data.createMemory.id, deduplicated: true });
    const batch = await other.api.graphql(BATCH, {
      items: [{ content: "Dinner with Marta at eight on Friday" }, { content: "Buy oat milk and bread" }, { content: "Buy bread and oat milk" }],
    });
    const results = batch.body.data.batchCreateMemories.results;
    expect(results.map((r: { deduplicated: boolean }) => r.deduplicated)).toEqual([true, false, true]);
    expect(results[0].id).toBe(theirs.body.data.createMemory.id);
    expect(results[2].id).toBe(results[1].id);
  });

  it("stores one of near duplicates sent at once", async () => {
    const user = await suite.server.newUser();
    const texts = ["Pick up the parcel on May 9", "Pick up the parcel on 9 May"];
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => user.api.post("/api/v1/memory", { content: texts[i % 2] })));
    expect(new Set(answers.map((res) => res.body.id)).size).toBe(1);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(await total(user)).toBe(1);
  });
});

/** The hashed embedder, as slow embedders are treated: writes store no vector and the outbox makes it later. */
function deferringEmbedder(): Embedder {
  const inner = new BuiltinEmbedder();
  return { id: inner.id, dimensions: inner.dimensions, deferWrites: true, embed: (texts) => inner.embed(texts) };
}

describe.skipIf(databaseUnavailable())("near duplicates with a background embedder", () => {
  const embedder = deferringEmbedder();
  const suite = serverWithUser({ DEDUPE: "near" }, { embedder });

  it("indexes the memory at once under the vector its check made", async () => {
    const user = await suite.server.newUser();
    const before = await suite.server.app.services.index.count(embedder.id);
    const created = await user.api.post("/api/v1/memory", { content: "I adopted a golden retriever puppy" });
    expect(created.status).toBe(201);
    expect(await suite.server.app.services.index.count(embedder.id)).toBe(before + 1);
    const found = await user.api.get(`/api/v1/memory/search?query=${encodeURIComponent("golden retriever")}`);
    expect(found.body.results.map((hit: { id: string }) => hit.id)).toEqual([created.body.id]);
  });

  it("embeds the new text at once and finds a near duplicate written just before", async () => {
    const first = await suite.user.api.post("/api/v1/memory", { content: "Dentist appointment on June 12" });
    const near = await suite.user.api.post("/api/v1/memory", { content: "Dentist appointment on 12 June" });
    expect(near.status).toBe(200);
    expect(near.body.id).toBe(first.body.id);
  });
});
