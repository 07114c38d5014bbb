import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { Logger } from "../../src/logger.ts";
import { UsearchIndex } from "../../src/vectors/usearch.ts";
import type { VectorFilter, VectorPoint } from "../../src/vectors/vector-index.ts";

// The embedded index answers a filter three ways (the graph, an exact scan of a type's rows, an exact scan of
// a tag's or thread's rows copied together); whichever it takes, the answer must be the true nearest points
// that pass, through updates that move points between types and tags, deletes that free keys for reuse, and a
// save and reload.

const EMBEDDER = "test-embedder";
const DIMENSIONS = 32;
const USER = "00000000-0000-4000-8000-000000000001";
const OTHER_USER = "00000000-0000-4000-8000-000000000002";
const TYPES = ["observation", "preference", "task"];
const TAGS = ["red", "green", "blue", "rare"];
const THREAD = "00000000-0000-4000-8000-0000000000aa";

/** Nodes added to the graphs (usearch's compiled index, whose methods cannot be spied on). */
const graphInserts = vi.hoisted(() => ({ count: 0 }));
/** A clock for the spacing of saves, which each graph save moves on by `perSave` ms (a save's duration). */
const saveClock = vi.hoisted(() => ({ now: 0, perSave: 0 }));
vi.mock("../../src/vectors/usearch-native.ts", async (importOriginal) => {
  const native = await importOriginal<typeof import("../../src/vectors/usearch-native.ts")>();
  const int8Graph: typeof native.int8Graph = (...args) => {
    const graph = native.int8Graph(...args);
    return {
      add(keys, vectors, threads) {
        graphInserts.count += keys.length;
        graph.add(keys, vectors, threads);
      },
      search: (query, k, threads) => graph.search(query, k, threads),
      remove: (keys) => graph.remove(keys),
      save: (path) => {
        saveClock.now += saveClock.perSave;
        graph.save(path);
      },
      load: (path) => graph.load(path),
    };
  };
  return { ...native, int8Graph };
});

const silent = { warn() {}, info() {}, error() {}, debug() {} } as unknown as Logger;
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** mulberry32, seeded: the same points on every run. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unit(random: () => number): Float32Array {
  const v = Float32Array.from({ length: DIMENSIONS }, () => random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function point(random: () => number, i: number, userId = USER): VectorPoint {
  return {
    id: `00000000-0000-4000-9000-${String(i).padStart(12, "0")}`,
    userId,
    vector: unit(random),
    type: TYPES[i % TYPES.length]!,
    // "rare" on one point in 50: a tag filter narrow enough for the copied-rows scan
    tags: i % 50 === 0 ? ["rare"] : [TAGS[i % 3]!],
    threadId: i % 40 === 0 ? THREAD : null,
    isArchived: i % 97 === 0,
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
    metadata: {},
    version: 1,
  };
}

function passes(p: VectorPoint, f: VectorFilter): boolean {
  if (p.userId !== f.userId || p.isArchived) return false;
  if (f.type !== undefined && p.type !== f.type) return false;
  if (f.threadId !== undefined && p.threadId !== f.threadId) return false;
  if (f.fromDate && p.createdAt < f.fromDate) return false;
  if (f.toDate && p.createdAt > f.toDate) return false;
  return !f.tags || f.tags.every((tag) => p.tags.includes(tag));
}

/**
 * A new index on a directory of its own (removed after the tests), its embedder ensured; by default its partitions
 * have a graph from their first point (scanMax 0), which the tests of graph nodes and their saves look into.
 */
async function indexIn(dir = mkdtempSync(join(tmpdir(), "usearch-unit-")), scanMax = 0): Promise<{ dir: string; index: UsearchIndex }> {
  if (!dirs.includes(dir)) dirs.push(dir);
  const index = (await UsearchIndex.open(dir, silent, undefined, scanMax))!;
  await index.ensure(EMBEDDER, DIMENSIONS);
  return { dir, index };
}

/** Deletes the points of `gone`, then writes `written`: in the index and in `live`, the truth it is held to. */
async function change(index: UsearchIndex, live: Map<string, VectorPoint>, gone: readonly string[], written: readonly VectorPoint[]) {
  await index.delete(EMBEDDER, gone);
  gone.forEach((id) => live.delete(id));
  await index.upsert(EMBEDDER, written);
  written.forEach((p) => live.set(p.id, p));
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

const FILTERS: [string, Omit<VectorFilter, "userId">][] = [
  ["no filter (the graph, or every type's rows scanned)", {}],
  ["a type (its rows, scanned)", { type: "preference" }],
  ["a type and a common tag", { type: "task", tags: ["red"] }],
  ["a rare tag (rows copied together)", { tags: ["rare"] }],
  ["a thread", { threadId: THREAD }],
  ["a date range", { fromDate: new Date(Date.UTC(2026, 0, 1, 10)), toDate: new Date(Date.UTC(2026, 0, 1, 30)) }],
  ["a type nobody has", { type: "journal" }],
];

/** The index's top 10 are the true top 10 of the points that pass, up to int8/f16 rounding of scores. */
async function expectTrueNearest(index: UsearchIndex, live: Map<string, VectorPoint>, random: () => number) {
  await index.graphsBuilt();
  for (const [name, narrowing] of FILTERS) {
    const filter = { userId: USER, ...narrowing };
    for (let q = 0; q < 5; q++) {
      const query = unit(random);
      const truth = [...live.values()]
        .filter((p) => passes(p, filter))
        .map((p) => ({ id: p.id, score: dot(p.vector, query) }))
        .sort((a, b) => b.score - a.score);
      const hits = await index.search(EMBEDDER, query, filter, 10);
      expect(hits.length, name).toBe(Math.min(10, truth.length));
      const trueScore = new Map(truth.map((t) => [t.id, t.score]));
      const tenth = truth[Math.min(9, truth.length - 1)]?.score ?? 0;
      for (const hit of hits) {
        expect(trueScore.has(hit.id), `${name}: ${hit.id} does not pass`).toBe(true);
        expect(trueScore.get(hit.id)!, name).toBeGreaterThanOrEqual(tenth - 0.02);
        expect(hit.score, name).toBeCloseTo(trueScore.get(hit.id)!, 1);
      }
    }
  }
}

/**
 * `scores` gives the cosine of each id the user's partition holds (archived ones too: the database decides what a
 * search shows), on search's scale, and leaves out deleted ids, another user's and unknown ones.
 */
async function expectScores(index: UsearchIndex, live: Map<string, VectorPoint>, absent: readonly string[], random: () => number) {
  const held = [...live.values()].filter((_, i) => i % 37 === 0);
  const query = unit(random);
  const scores = await index.scores(EMBEDDER, USER, query, [...absent, ...held.map((p) => p.id), "00000000-0000-4000-9000-999999999999"]);
  expect(scores.map((hit) => hit.id).sort()).toEqual(held.map((p) => p.id).sort());
  for (const hit of scores) expect(hit.score).toBeCloseTo(dot(live.get(hit.id)!.vector, query), 1);
  // the same number search gives the same point: a memory found both ways is ranked alike
  const probe = held.find((p) => !p.isArchived)!;
  const [searched] = await index.search(EMBEDDER, probe.vector, { userId: USER }, 1);
  expect(searched!.id).toBe(probe.id);
  expect((await index.scores(EMBEDDER, USER, probe.vector, [probe.id]))[0]!.score).toBeCloseTo(searched!.score, 5);
}

describe("UsearchIndex", () => {
  // a partition of up to SCAN_MAX points is scanned whole; scanMax 0 makes this one's searches walk the graph
  it.each([
    ["scanned", undefined],
    ["walked", 0],
  ])("answers every kind of filter with the true nearest points, through updates, deletes and a reload (%s)", async (_, scanMax) => {
    const dir = mkdtempSync(join(tmpdir(), "usearch-unit-"));
    dirs.push(dir);
    const random = rng(42);
    const index = (await UsearchIndex.open(dir, silent, undefined, scanMax))!;
    await index.ensure(EMBEDDER, DIMENSIONS);
    const live = new Map<string, VectorPoint>();
    const points = Array.from({ length: 3000 }, (_, i) => point(random, i));
    for (let i = 0; i < points.length; i += 100) await index.upsert(EMBEDDER, points.slice(i, i + 100));
    points.forEach((p) => live.set(p.id, p));
    // another user's points sit next to the same queries and must never be answered
    const others = Array.from({ length: 200 }, (_, i) => point(random, 50_000 + i, OTHER_USER));
    await index.upsert(EMBEDDER, others);
    await expectTrueNearest(index, live, random);

    // moves between types and tags, new vectors, deletes, then new points that reuse the freed keys
    const moved = points.slice(0, 600).map((p, i) => ({
      ...p,
      vector: unit(random),
      type: TYPES[(i + 1) % TYPES.length]!,
      tags: i % 7 === 0 ? ["rare", "blue"] : [],
      version: 2,
    }));
    await index.upsert(EMBEDDER, moved);
    moved.forEach((p) => live.set(p.id, p));
    const deleted = points.slice(1000, 1500).map((p) => p.id);
    await change(index, live, deleted, Array.from({ length: 400 }, (_, i) => point(random, 10_000 + i)));
    expect(await index.count(EMBEDDER)).toBe(live.size + 200);
    await expectTrueNearest(index, live, random);
    await expectScores(index, live, [...deleted, ...others.slice(0, 20).map((p) => p.id)], random);

    await index.close();
    const reopened = (await UsearchIndex.open(dir, silent, undefined, scanMax))!;
    await reopened.ensure(EMBEDDER, DIMENSIONS);
    expect(await reopened.count(EMBEDDER)).toBe(live.size + 200);
    await expectTrueNearest(reopened, live, random);
    await expectScores(reopened, live, deleted, random);
    const versions = new Map([...live.values(), ...others].map((p) => [p.id, p.version]));
    expect(await reopened.reconcile(EMBEDDER, versions)).toEqual({ stale: [], extra: [] });
    await reopened.close();
  });

  it("builds a partition's graph once it grows past scanMax, scanning until then, through saves with and without one", async () => {
    const random = rng(7);
    const live = new Map<string, VectorPoint>();
    const points = Array.from({ length: 2500 }, (_, i) => point(random, i));
    const { dir, index } = await indexIn(undefined, 1500);
    // below scanMax: no graph, saved without one
    await change(index, live, [], points.slice(0, 1200));
    await expectTrueNearest(index, live, random);
    await index.close();
    const { index: reopened } = await indexIn(dir, 1500);
    await expectTrueNearest(reopened, live, random);
    // past it: the graph is built from every row, while writes go on and searches answer
    await change(reopened, live, [], points.slice(1200, 1600));
    const searchedMeanwhile = await reopened.search(EMBEDDER, points[5]!.vector, { userId: USER }, 1);
    expect(searchedMeanwhile[0]?.id).toBe(points[5]!.id);
    await change(reopened, live, points.slice(0, 100).map((p) => p.id), points.slice(1600));
    await expectTrueNearest(reopened, live, random);
    await reopened.close();
    const { index: again } = await indexIn(dir, 1500);
    expect(await again.count(EMBEDDER)).toBe(live.size);
    await expectTrueNearest(again, live, random);
    await again.close();
  });

  it("loads a partition saved while its graph was being built, and finishes the graph", async () => {
    const random = rng(8);
    const live = new Map<string, VectorPoint>();
    const points = Array.from({ length: 1300 }, (_, i) => point(random, i));
    const { dir, index } = await indexIn(undefined, 1000);
    await change(index, live, [], points.slice(0, 1000));
    // past scanMax: the build goes 16 points a turn while these are written, and the save comes before it ends
    await change(index, live, [], points.slice(1000));
    await index.close();
    const json = readdirSync(dir, { recursive: true, encoding: "utf8" }).find((name) => name.endsWith(".json"))!;
    const saved = JSON.parse(readFileSync(join(dir, json), "utf8")) as unknown[][];
    expect(saved.filter((row) => row[8] === -1).length).toBeGreaterThan(0);
    const { index: reopened } = await indexIn(dir, 1000);
    await expectTrueNearest(reopened, live, random);
    await reopened.close();
  });

  it("loads a partition whose payloads were saved as objects, as saves before the rows' form wrote them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "usearch-unit-"));
    dirs.push(dir);
    const random = rng(11);
    const index = (await UsearchIndex.open(dir, silent))!;
    await index.ensure(EMBEDDER, DIMENSIONS);
    const points = Array.from({ length: 400 }, (_, i) => point(random, i));
    await index.upsert(EMBEDDER, points);
    await index.close();
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".json"));
    expect(files).toHaveLength(1);
    const file = join(dir, files[0]!);
    type Row = [number, string, number, string | null, string[], string | null, boolean, number];
    const rows = JSON.parse(readFileSync(file, "utf8")) as Row[];
    const objects = rows.map(([key, id, version, type, tags, threadId, isArchived, createdAt]) => [
      key,
      { id, version, type, tags, threadId, isArchived, createdAt },
    ]);
    writeFileSync(file, JSON.stringify(objects));
    const reopened = (await UsearchIndex.open(dir, silent))!;
    await reopened.ensure(EMBEDDER, DIMENSIONS);
    expect(await reopened.count(EMBEDDER)).toBe(points.length);
    await expectTrueNearest(reopened, new Map(points.map((p) => [p.id, p])), random);
    await reopened.close();
  });

  it("filters by what a point was written with, not by the caller's arrays after, and moves a point between users", async () => {
    const random = rng(5);
    const index = (await UsearchIndex.open(undefined, silent))!;
    await index.ensure(EMBEDDER, DIMENSIONS);
    const points = Array.from({ length: 300 }, (_, i) => ({ ...point(random, i), isArchived: false }));
    await index.upsert(EMBEDDER, points);
    // the index keeps its own copies (of the tags, its one string for each word): the caller's arrays are theirs
    const rare = points.find((p) => p.tags.includes("rare"))!;
    rare.tags.splice(0, rare.tags.length, "green");
    const [hit] = await index.search(EMBEDDER, rare.vector, { userId: USER, tags: ["rare"] }, 1);
    expect(hit?.id).toBe(rare.id);
    expect(await index.search(EMBEDDER, rare.vector, { userId: USER, tags: ["green"] }, 300)).not.toContainEqual(
      expect.objectContaining({ id: rare.id }),
    );

    const moved = { ...points[7]!, userId: OTHER_USER, version: 2 };
    await index.upsert(EMBEDDER, [moved]);
    const ownHits = await index.search(EMBEDDER, moved.vector, { userId: USER }, 300);
    expect(ownHits.map((h) => h.id)).not.toContain(moved.id);
    expect((await index.search(EMBEDDER, moved.vector, { userId: OTHER_USER }, 1))[0]?.id).toBe(moved.id);
    expect(await index.count(EMBEDDER)).toBe(points.length);
    await index.delete(EMBEDDER, [moved.id]);
    expect(await index.search(EMBEDDER, moved.vector, { userId: OTHER_USER }, 1)).toEqual([]);
    expect(await index.count(EMBEDDER)).toBe(points.length - 1);
    await index.close();
  });

  it("reloads every point's row, past the chunks a saved partition is read in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "usearch-unit-"));
    dirs.push(dir);
    const random = rng(7);
    const index = (await UsearchIndex.open(dir, silent))!;
    await index.ensure(EMBEDDER, DIMENSIONS);
    const points = Array.from({ length: 9_000 }, (_, i) => ({ ...point(random, i), isArchived: false }));
    for (let i = 0; i < points.length; i += 1_000) await index.upsert(EMBEDDER, points.slice(i, i + 1_000));
    await index.close();
    const reopened = (await UsearchIndex.open(dir, silent))!;
    await reopened.ensure(EMBEDDER, DIMENSIONS);
    // a type filter is answered by an exact scan of the type's rows: each point, asked for, is its own nearest
    for (const p of points.filter((_, i) => i % 97 === 0)) {
      const [hit] = await reopened.search(EMBEDDER, p.vector, { userId: USER, type: p.type! }, 1);
      expect(hit?.id).toBe(p.id);
    }
    await reopened.close();
  });

  it("gives points with identical vectors one graph node: inserted once, each found, through updates, deletes and a reload", async () => {
    const random = rng(23);
    graphInserts.count = 0;
    const inserted = () => graphInserts.count;
    const { dir, index } = await indexIn();
    // 600 points, then 400 more whose vectors are copies of the first 50's (a text written again, eight times)
    const originals = Array.from({ length: 600 }, (_, i) => point(random, i));
    const copies = Array.from({ length: 400 }, (_, i) => ({ ...point(random, 1_000 + i), vector: Float32Array.from(originals[i % 50]!.vector) }));
    const live = new Map([...originals, ...copies].map((p) => [p.id, p]));
    for (const batch of [originals.slice(0, 300), [...originals.slice(300), ...copies.slice(0, 200)], copies.slice(200)]) {
      await index.upsert(EMBEDDER, batch);
    }
    expect(inserted()).toBe(600);
    await expectTrueNearest(index, live, random);
    // the points that hold one vector (nine of them at first) are all found by it
    const shared = originals[3]!.vector;
    const holding = () => [...live.values()].filter((p) => !p.isArchived && p.vector.every((x, i) => x === shared[i])).map((p) => p.id);
    const found = async (at: UsearchIndex) => (await at.search(EMBEDDER, shared, { userId: USER }, 20)).map((hit) => hit.id);
    expect(holding()).toHaveLength(9);
    expect(await found(index)).toEqual(expect.arrayContaining(holding()));

    // a change of tags keeps the vector (no insert); a new vector leaves the shared node for a node of its own
    graphInserts.count = 0;
    const retagged = copies.slice(0, 100).map((p) => ({ ...p, tags: ["blue"], version: 2 }));
    const rewritten = copies.slice(100, 150).map((p) => ({ ...p, vector: unit(random), version: 2 }));
    await index.upsert(EMBEDDER, [...retagged, ...rewritten]);
    expect(inserted()).toBe(50);
    [...retagged, ...rewritten].forEach((p) => live.set(p.id, p));
    // a shared node's points deleted one by one, the original among them: the others are still found by it
    const leaving = [originals[3]!.id, copies[53]!.id];
    await index.delete(EMBEDDER, leaving);
    leaving.forEach((id) => live.delete(id));
    await expectTrueNearest(index, live, random);
    expect(holding()).toHaveLength(6);
    expect(await found(index)).toEqual(expect.arrayContaining(holding()));
    // a node whose points are all gone leaves the graph, and its vector written again is inserted again
    const lone = originals[599]!;
    await index.delete(EMBEDDER, [lone.id]);
    live.delete(lone.id);
    graphInserts.count = 0;
    const again = { ...point(random, 5_000), vector: Float32Array.from(lone.vector), isArchived: false };
    await index.upsert(EMBEDDER, [again]);
    live.set(again.id, again);
    expect(inserted()).toBe(1);

    await index.close();
    const { index: reopened } = await indexIn(dir);
    expect(await reopened.count(EMBEDDER)).toBe(live.size);
    await expectTrueNearest(reopened, live, random);
    expect(await found(reopened)).toEqual(expect.arrayContaining(holding()));
    await reopened.close();
  });

  it("says when a save wrote files (its thread then collects what the save left), and not when there was nothing to write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "usearch-unit-"));
    dirs.push(dir);
    const saved = vi.fn();
    const index = (await UsearchIndex.open(dir, silent, saved))!;
    await index.ensure(EMBEDDER, DIMENSIONS);
    index.save();
    expect(saved).not.toHaveBeenCalled();
    await index.upsert(EMBEDDER, [point(rng(41), 1)]);
    index.save();
    expect(saved).toHaveBeenCalledTimes(1);
    index.save();
    expect(saved).toHaveBeenCalledTimes(1);
    await index.close();
  });

  it("saves a partition by the timer no sooner than 100 times its last save's duration after it; a close saves it whatever", async () => {
    const dir = mkdtempSync(join(tmpdir(), "usearch-unit-"));
    dirs.push(dir);
    const saved = vi.fn();
    const index = (await UsearchIndex.open(dir, silent, saved, 0, () => saveClock.now))!;
    await index.ensure(EMBEDDER, DIMENSIONS);
    const random = rng(43);
    saveClock.perSave = 50; // a save that takes 50 ms: the next timed one 5 s after it at the soonest
    await index.upsert(EMBEDDER, [point(random, 1)]);
    index.save(true);
    expect(saved).toHaveBeenCalledTimes(1);
    await index.upsert(EMBEDDER, [point(random, 2)]);
    saveClock.now += 4_900;
    index.save(true);
    expect(saved, "too soon").toHaveBeenCalledTimes(1);
    saveClock.now += 100;
    index.save(true);
    expect(saved).toHaveBeenCalledTimes(2);
    await index.upsert(EMBEDDER, [point(random, 3)]);
    await index.close();
    expect(saved, "the close's save").toHaveBeenCalledTimes(3);
    const { index: reopened } = await indexIn(dir);
    expect(await reopened.count(EMBEDDER)).toBe(3);
    await reopened.close();
    saveClock.perSave = 0;
  });

  /** A partition of 400 points saved and closed, for the tests of older save formats to rewrite. */
  async function savedPartition(seed: number) {
    const random = rng(seed);
    const { dir, index } = await indexIn();
    const points = Array.from({ length: 400 }, (_, i) => point(random, i));
    await index.upsert(EMBEDDER, points);
    await index.close();
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" });
    return { random, dir, points, files };
  }

  /** The rewritten partition loads, finds the true nearest, and takes deletes and inserts (its keys and nodes reused). */
  async function expectServesAfterLoad({ random, dir, points }: Awaited<ReturnType<typeof savedPartition>>) {
    const { index: reopened } = await indexIn(dir);
    const live = new Map(points.map((p) => [p.id, p]));
    await expectTrueNearest(reopened, live, random);
    await change(reopened, live, points.slice(0, 40).map((p) => p.id), Array.from({ length: 60 }, (_, i) => point(random, 900 + i)));
    await expectTrueNearest(reopened, live, random);
    await reopened.close();
  }

  it("searches and changes a graph saved with f16 nodes, as graphs were before they held int8 rows", async () => {
    const partition = await savedPartition(37);
    const { dir, points, files } = partition;
    const [json] = files.filter((name) => name.endsWith(".json"));
    const [graph] = files.filter((name) => name.endsWith(".usearch"));
    // the same nodes (a node is its point's key here: nothing was deleted or shared), written as usearch's Index wrote them
    const saved = JSON.parse(readFileSync(join(dir, json!), "utf8")) as [number, string][];
    const byId = new Map(points.map((p) => [p.id, p.vector]));
    const { Index, MetricKind, ScalarKind } = createRequire(import.meta.url)("usearch") as typeof import("usearch");
    const f16 = new Index({ metric: MetricKind.Cos, dimensions: DIMENSIONS, connectivity: 16, quantization: ScalarKind.F16, expansion_add: 64, expansion_search: 768, multi: false });
    f16.add(BigUint64Array.from(saved, ([key]) => BigInt(key)), saved.map(([, id]) => byId.get(id)!), 1);
    const before = statSync(join(dir, graph!)).size;
    f16.save(join(dir, graph!));
    expect(statSync(join(dir, graph!)).size).toBeGreaterThan(before); // two bytes a component against one
    await expectServesAfterLoad(partition);
  });

  it("loads a partition saved before nodes were shared (each point its own node, by its key)", async () => {
    const partition = await savedPartition(31);
    const { dir, files } = partition;
    const [file] = files.filter((name) => name.endsWith(".json"));
    const rows = JSON.parse(readFileSync(join(dir, file!), "utf8")) as unknown[][];
    // nothing was deleted or shared, so each node is its point's key, as the graph of an older save was keyed
    expect(rows.every((row) => row[8] === row[0])).toBe(true);
    writeFileSync(join(dir, file!), JSON.stringify(rows.map((row) => row.slice(0, 8))));
    await expectServesAfterLoad(partition);
  });
});
