import { setImmediate } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../src/logger.ts";
import { DraftedIndex } from "../../src/vectors/drafted-index.ts";
import { UsearchIndex } from "../../src/vectors/usearch.ts";
import type { VectorIndex, VectorPoint } from "../../src/vectors/vector-index.ts";

// usearch inserts a large batch over several turns of the event loop, so that a round of background vectors does
// not hold requests back; a search in between must still see every memory exactly once: under its vector where
// that is in, under its draft where it is not yet.

const EMBEDDER = "test-embedder";
const DIMENSIONS = 16;
const USER = "00000000-0000-4000-8000-000000000001";
const silent = { warn() {}, info() {}, error() {}, debug() {} } as unknown as Logger;

function point(n: number): VectorPoint {
  const vector = Float32Array.from({ length: DIMENSIONS }, (_, i) => Math.sin(n * 7.1 + i * 1.3));
  const norm = Math.hypot(...vector);
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    userId: USER,
    vector: vector.map((x) => x / norm),
    type: null,
    tags: [],
    threadId: null,
    isArchived: false,
    createdAt: new Date(0),
    metadata: {},
    version: 1,
  };
}

describe("a drafted usearch index", () => {
  it("shows each memory once while a batch of vectors is being inserted, and drops the drafts once it is in", async () => {
    const usearch = await UsearchIndex.open(undefined, silent);
    if (!usearch) throw new Error("usearch has no binary for this platform");
    const index = new DraftedIndex(usearch);
    await index.ensure(EMBEDDER, DIMENSIONS);
    const points = Array.from({ length: 64 }, (_, n) => point(n));
    expect(index.putDrafts(EMBEDDER, points)).toBe(points.length);

    const inserting = index.upsert(EMBEDDER, points);
    await setImmediate();
    const midway = await index.search(EMBEDDER, points[0]!.vector, { userId: USER }, 100);
    expect(await usearch.count(EMBEDDER)).toBeGreaterThan(0);
    expect(await usearch.count(EMBEDDER)).toBeLessThan(points.length);
    expect(midway.map((hit) => hit.id).sort()).toEqual(points.map((p) => p.id).sort());
    expect(midway[0]!.id).toBe(points[0]!.id);

    await inserting;
    expect(await index.count(EMBEDDER)).toBe(points.length);
    const after = await index.search(EMBEDDER, points[5]!.vector, { userId: USER }, 100);
    expect(after.map((hit) => hit.id).sort()).toEqual(points.map((p) => p.id).sort());
    expect(after[0]!.id).toBe(points[5]!.id);
  });

  it("scores a memory under its vector where the index holds it, else under its draft; over an index that cannot score, not at all", async () => {
    const usearch = (await UsearchIndex.open(undefined, silent))!;
    const index = new DraftedIndex(usearch);
    await index.ensure(EMBEDDER, DIMENSIONS);
    const [indexed, drafted, unknown] = [point(1), point(2), point(3)];
    await index.upsert(EMBEDDER, [indexed!]);
    index.putDrafts(EMBEDDER, [drafted!]);
    const query = point(4).vector;
    const scores = await index.scores!(EMBEDDER, USER, query, [indexed!.id, drafted!.id, unknown!.id]);
    expect(scores.map((hit) => hit.id).sort()).toEqual([indexed!.id, drafted!.id].sort());
    const cos = (p: VectorPoint) => p.vector.reduce((sum, x, i) => sum + x * query[i]!, 0);
    for (const hit of scores) expect(hit.score).toBeCloseTo(cos(hit.id === indexed!.id ? indexed! : drafted!), 1);
    // SearchService reads the database's vectors when the index has no scores of its own
    expect(new DraftedIndex({ kind: "pgvector" } as VectorIndex).scores).toBeUndefined();
  });
});
