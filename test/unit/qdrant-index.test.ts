import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger, type Logger } from "../../src/logger.ts";
import { collectionName, QdrantIndex } from "../../src/vectors/qdrant.ts";
import { VectorIndexUnavailable, type VectorPoint } from "../../src/vectors/vector-index.ts";
import { FakeQdrant, type RecordedRequest } from "../support/fake-qdrant.ts";

const KEY = "unit-test-secret-key";
const EMBEDDER = "openai:text-embedding-3-small/4";
const logger = createLogger("silent");

let fake: FakeQdrant;
beforeEach(async () => {
  fake = await FakeQdrant.start({ apiKey: KEY });
});
afterEach(() => fake.close());

const open = (apiKey: string | undefined = KEY) => QdrantIndex.open({ url: fake.url, apiKey }, logger);

async function ensured(dimensions = 4, embedder = EMBEDDER): Promise<QdrantIndex> {
  const index = await open();
  await index.ensure(embedder, dimensions);
  return index;
}

function point(vector: number[], fields: Partial<Omit<VectorPoint, "vector">> = {}): VectorPoint {
  return {
    id: randomUUID(),
    userId: "user-a",
    type: null,
    tags: [],
    threadId: null,
    isArchived: false,
    createdAt: new Date("2025-01-01T00:00:00Z"),
    metadata: {},
    version: 1,
    ...fields,
    vector: Float32Array.from(vector),
  };
}

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
}

const queryFilters = () => fake.requestsTo("POST", "/points/query").map((r) => (r.body as { filter: QueryFilter }).filter);
interface QueryFilter {
  must: { key: string; match?: { value: unknown }; range?: unknown }[];
  must_not: { key: string; match: { value: unknown } }[];
}

describe("QdrantIndex against the fake Qdrant", () => {
  it("creates the collection and its payload indexes once, and a second process reuses them", async () => {
    const index = await ensured();
    await index.ensure(EMBEDDER, 4);
    const name = collectionName(EMBEDDER);
    expect(name).toMatch(/^memories_[0-9a-f]{16}$/);
    const collection = fake.collections.get(name)!;
    expect(collection).toMatchObject({ size: 4, distance: "Cosine", metadata: { embedder_id: EMBEDDER } });
    expect(Object.fromEntries(collection.indexes)).toEqual({
      user_id: { data_type: "keyword", params: { type: "keyword", is_tenant: true } },
      type: { data_type: "keyword", params: { type: "keyword" } },
      tags: { data_type: "keyword", params: { type: "keyword" } },
      thread_id: { data_type: "keyword", params: { type: "keyword" } },
      is_archived: { data_type: "bool", params: { type: "bool" } },
      created_at: { data_type: "datetime", params: { type: "datetime" } },
    });
    expect(fake.requestsTo("PUT", `/collections/${name}`)).toHaveLength(1);
    const indexRequests = fake.requestsTo("PUT", "/index");
    expect(indexRequests).toHaveLength(6);
    expect(indexRequests.every((r) => r.query.get("wait") === "true")).toBe(true);

    const writes = () => fake.requests.filter((r) => r.method !== "GET").length;
    const before = writes();
    await (await ensured()).ensure(EMBEDDER, 4);
    expect(writes()).toBe(before);
  });

  it("answers metadata conditions on a new collection; on an older one only once a rebuild has cleared it", async () => {
    expect((await ensured()).searchesWhere(EMBEDDER)).toBe(true);
    const name = collectionName(EMBEDDER);
    expect(fake.collections.get(name)!.metadata).toEqual({ embedder_id: EMBEDDER, points_hold_metadata: true });
    // a collection written by an earlier version: its points hold no metadata
    fake.collections.get(name)!.metadata = { embedder_id: EMBEDDER };
    const older = await ensured();
    expect(older.searchesWhere(EMBEDDER)).toBe(false);
    await older.clear(EMBEDDER);
    expect(older.searchesWhere(EMBEDDER)).toBe(true);
    expect(fake.collections.get(name)!.metadata).toEqual({ embedder_id: EMBEDDER, points_hold_metadata: true });
    expect((await ensured()).searchesWhere(EMBEDDER)).toBe(true);
    expect((await open()).searchesWhere("not-ensured")).toBe(false);
  });

  it("stores the metadata in the shape the filter conditions read", async () => {
    const index = await ensured();
    const metadata = {
      project: "apollo",
      due: ["2026-05-01", null, { at: "2026-06-01" }, 3, "soon"],
      nested: { level: 2, empty: {}, gone: null },
      "not.a.key": 1,
      "123": "digits",
      none: [null],
    };
    const stored = point([1, 0, 0, 0], { metadata });
    await index.upsert(EMBEDDER, [stored]);
    const { payload } = fake.collections.get(collectionName(EMBEDDER))!.points.get(stored.id)!;
    expect(payload.metadata).toEqual({
      project: ["apollo"],
      due: ["2026-05-01", 3, "soon"],
      nested: { level: [2], empty: {}, gone: [] },
      none: [],
    });
    expect(payload.metadata_instants).toEqual({ project: [], due: [Date.parse("2026-05-01T00:00:00Z")], nested: { level: [], empty: {}, gone: [] }, none: [] });
    expect((payload.metadata_paths as string[]).sort()).toEqual(["due", "nested", "nested.empty", "nested.level", "project"]);
  });

  it("lets two processes ensure the same collection at once", async () => {
    const [a, b] = [await open(), await open()];
    await Promise.all([a.ensure(EMBEDDER, 4), b.ensure(EMBEDDER, 4)]);
    expect(fake.collections.size).toBe(1);
    expect(fake.collections.get(collectionName(EMBEDDER))!.indexes.size).toBe(6);
  });

  it("sends the API key as the api-key header on every request", async () => {
    const index = await ensured();
    await index.upsert(EMBEDDER, [point([1, 0, 0, 0])]);
    await index.search(EMBEDDER, Float32Array.from([1, 0, 0, 0]), { userId: "user-a" }, 5);
    expect(fake.requests.length).toBeGreaterThan(8);
    expect(fake.requests.map((r: RecordedRequest) => r.headers["api-key"])).toEqual(fake.requests.map(() => KEY));
  });

  it("fails clearly with a wrong or missing key, without showing the key", async () => {
    const wrongKey = "not-the-right-key";
    const wrong = await open(wrongKey); // `GET /` needs no key, in Qdrant as in the fake
    const refusal = await wrong.ensure(EMBEDDER, 4).catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toMatch(/401 Invalid API key or JWT/);
    expect((refusal as Error).message).toContain(fake.url);
    expect((refusal as Error).message).not.toContain(wrongKey);
    const keyless = await QdrantIndex.open({ url: fake.url, apiKey: undefined }, logger);
    await expect(keyless.ensure(EMBEDDER, 4)).rejects.toThrow(/401 Must provide an API key/);
  });

  it("puts the user on every search, and filters only on indexed fields", async () => {
    const index = await ensured();
    await index.upsert(EMBEDDER, [point([1, 0, 0, 0]), point([1, 0, 0, 0], { userId: "user-b" })]);
    const vector = Float32Array.from([1, 0, 0, 0]);
    await index.search(EMBEDDER, vector, { userId: "user-a" }, 10);
    await index.search(EMBEDDER, vector, { userId: "user-b", type: "task", tags: ["x", "y"] }, 10);
    await index.search(EMBEDDER, vector, { userId: "user-a", threadId: randomUUID(), fromDate: new Date(0) }, 10);
    await index.search(EMBEDDER, vector, { userId: "user-b", toDate: new Date() }, 10);

    const filters = queryFilters();
    expect(filters.map((f) => f.must.find((c) => c.key === "user_id")?.match?.value)).toEqual([
      "user-a",
      "user-b",
      "user-a",
      "user-b",
    ]);
    for (const filter of filters) {
      expect(filter.must_not).toContainEqual({ key: "is_archived", match: { value: true } });
      const indexed = [...fake.collections.get(collectionName(EMBEDDER))!.indexes.keys()];
      expect(indexed).toEqual(expect.arrayContaining([...filter.must, ...filter.must_not].map((c) => c.key)));
    }
    expect(filters[1]!.must.filter((c) => c.key === "tags")).toEqual([
      { key: "tags", match: { value: "x" } },
      { key: "tags", match: { value: "y" } },
    ]);
  });

  it("returns the nearest of the user's unarchived points that pass the filter, with cosine scores", async () => {
    const index = await ensured();
    const near = point([1, 0.1, 0, 0], { type: "task", tags: ["family", "music"], createdAt: new Date("2025-03-01T00:00:00Z") });
    const far = point([0, 1, 1, 0], { type: "note", tags: ["family"], threadId: randomUUID() });
    const opposite = point([-1, 0, 0, 0.2], { tags: ["music"] });
    const archived = point([1, 0, 0, 0], { isArchived: true });
    const someoneElse = point([1, 0, 0, 0], { userId: "user-b" });
    await index.upsert(EMBEDDER, [near, far, opposite, archived, someoneElse]);
    const query = [1, 0, 0, 0];
    const search = (filter: Omit<Parameters<QdrantIndex["search"]>[2], "userId"> = {}, limit = 10) =>
      index.search(EMBEDDER, Float32Array.from(query), { userId: "user-a", ...filter }, limit);

    const all = await search();
    expect(all.map((h) => h.id)).toEqual([near.id, far.id, opposite.id]);
    for (const [hit, p] of all.map((h, i) => [h, [near, far, opposite][i]!] as const)) {
      expect(typeof hit.id).toBe("string");
      expect(hit.score).toBeCloseTo(cosine(query, Array.from(p.vector)), 5);
    }
    expect(all[2]!.score).toBeLessThan(0);
    expect((await search({}, 1)).map((h) => h.id)).toEqual([near.id]);
    expect((await search({ type: "note" })).map((h) => h.id)).toEqual([far.id]);
    expect((await search({ tags: ["family", "music"] })).map((h) => h.id)).toEqual([near.id]);
    expect((await search({ tags: ["music"] })).map((h) => h.id)).toEqual([near.id, opposite.id]);
    expect((await search({ threadId: far.threadId! })).map((h) => h.id)).toEqual([far.id]);
    expect((await search({ fromDate: new Date("2025-02-01T00:00:00Z") })).map((h) => h.id)).toEqual([near.id]);
    expect((await search({ toDate: new Date("2025-01-01T00:00:00Z") })).map((h) => h.id)).toEqual([far.id, opposite.id]);
    expect(await index.search(EMBEDDER, Float32Array.from(query), { userId: "nobody" }, 10)).toEqual([]);
  });

  it("replaces a point on upsert and forgets it on delete", async () => {
    const index = await ensured();
    const p = point([1, 0, 0, 0]);
    await index.upsert(EMBEDDER, [p]);
    await index.upsert(EMBEDDER, [{ ...p, tags: ["moved"], version: 2 }]);
    expect(await index.count(EMBEDDER)).toBe(1);
    expect(await index.search(EMBEDDER, p.vector, { userId: "user-a", tags: ["moved"] }, 10)).toHaveLength(1);
    await index.delete(EMBEDDER, [p.id, randomUUID()]);
    expect(await index.count(EMBEDDER)).toBe(0);
  });

  it("writes in batches that wait until applied", async () => {
    const index = await ensured();
    const points = Array.from({ length: 600 }, (_, i) => point([1, i, 0, 0]));
    await index.upsert(EMBEDDER, points);
    const upserts = fake.requestsTo("PUT", "/points");
    expect(upserts.map((r) => (r.body as { points: unknown[] }).points.length)).toEqual([256, 256, 88]);
    expect(upserts.every((r) => r.query.get("wait") === "true")).toBe(true);
    expect(await index.count(EMBEDDER)).toBe(600);

    await index.delete(EMBEDDER, points.map((p) => p.id));
    const deletes = fake.requestsTo("POST", "/points/delete");
    expect(deletes).toHaveLength(3);
    expect(deletes.every((r) => r.query.get("wait") === "true")).toBe(true);
    expect(await index.count(EMBEDDER)).toBe(0);

    await index.upsert(EMBEDDER, []);
    await index.delete(EMBEDDER, []);
    expect(fake.requestsTo("PUT", "/points")).toHaveLength(3);
  });

  it("clears every point of the embedder and keeps the collection and its indexes", async () => {
    const index = await ensured();
    await index.upsert(EMBEDDER, [point([1, 0, 0, 0]), point([0, 1, 0, 0]), point([0, 0, 1, 0], { userId: "user-b" })]);
    expect(await index.count(EMBEDDER)).toBe(3);
    await index.clear(EMBEDDER);
    expect(await index.count(EMBEDDER)).toBe(0);
    expect(await index.search(EMBEDDER, Float32Array.from([1, 0, 0, 0]), { userId: "user-a" }, 10)).toEqual([]);
    expect(fake.collections.get(collectionName(EMBEDDER))!.indexes.size).toBe(6);
  });

  it("keeps two embedders in two collections that never mix", async () => {
    const other = "builtin:hashing-v1/3";
    const index = await ensured();
    await index.ensure(other, 3);
    expect(collectionName(other)).not.toBe(collectionName(EMBEDDER));
    const mine = point([1, 0, 0, 0]);
    const theirs = point([1, 0, 0]);
    await index.upsert(EMBEDDER, [mine]);
    await index.upsert(other, [theirs]);
    expect((await index.search(EMBEDDER, Float32Array.from([1, 0, 0, 0]), { userId: "user-a" }, 10)).map((h) => h.id)).toEqual([
      mine.id,
    ]);
    expect((await index.search(other, Float32Array.from([1, 0, 0]), { userId: "user-a" }, 10)).map((h) => h.id)).toEqual([
      theirs.id,
    ]);
    await index.clear(EMBEDDER);
    expect([await index.count(EMBEDDER), await index.count(other)]).toEqual([0, 1]);
    expect([...fake.collections.get(collectionName(other))!.points.keys()]).toEqual([theirs.id]);
  });

  it("refuses a collection whose vectors have another size", async () => {
    await ensured(4);
    const error = await (await open()).ensure(EMBEDDER, 8).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/holds vectors of 4 dimensions, Cosine.*makes 8 dimensions/);
    expect((error as Error).message).toContain(collectionName(EMBEDDER));
  });

  it("surfaces a failing request as a rejection naming the operation and the URL, never the key", async () => {
    const index = await ensured();
    fake.failNext(1, 500);
    const error = await index.upsert(EMBEDDER, [point([1, 0, 0, 0])]).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/^Qdrant upsert into memories_[0-9a-f]{16} failed/);
    expect(message).toContain(fake.url);
    expect(message).toContain("500 Service internal error");
    expect(message).not.toContain(KEY);
    expect(await index.count(EMBEDDER)).toBe(0);

    fake.failNext(1, 503);
    await expect(index.search(EMBEDDER, Float32Array.from([1, 0, 0, 0]), { userId: "user-a" }, 10)).rejects.toThrow(
      /^Qdrant search in .* failed .*: 503/,
    );
    fake.failNext(1, 500);
    await expect(index.ping()).rejects.toThrow(/^Qdrant ping failed/);
    await index.ping();
  });

  // a Qdrant away at start stopped the service's start (outside probe): it opens, says so, and its calls fail
  it("opens when nothing answers, warning and failing its calls with errors naming the URL and not the key", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const warn = vi.fn();
    const index = await QdrantIndex.open({ url, apiKey: KEY }, { ...logger, warn } as unknown as Logger);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(warn.mock.calls[0])).toMatch(/Qdrant version check failed \(http:\/\/127\.0\.0\.1:\d+\): .*ECONNREFUSED/);
    expect(JSON.stringify(warn.mock.calls[0])).not.toContain(KEY);
    const error = await index.ping().catch((e: Error) => e);
    expect(error).toBeInstanceOf(VectorIndexUnavailable);
    expect((error as Error).message).toMatch(/^Qdrant ping failed \(http:\/\/127\.0\.0\.1:\d+\): .*ECONNREFUSED/);
    expect((error as Error).message).not.toContain(KEY);
  });

  it("refuses to work with an embedder it has not ensured", async () => {
    const index = await open();
    await expect(index.upsert(EMBEDDER, [point([1, 0, 0, 0])])).rejects.toThrow(/not ensured/);
  });
});
