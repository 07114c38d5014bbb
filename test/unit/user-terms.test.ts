import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SCORED } from "../../src/domain/lexical.ts";
import { UserTerms } from "../../src/domain/user-terms.ts";

// the SQL side of the ranking is compared in test/integration/term-index.test.ts, on corpora too small to reach
// BM25's cut of SCORED memories; the cut is checked here against a plain sort
describe("UserTerms' cut of BM25 to the best SCORED memories", () => {
  it("keeps every memory scoring above the SCORED-th best score, and as many tied with it as fit", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: SCORED + 1, maxLength: SCORED * 2 }), async (tfs) => {
        const terms = new UserTerms();
        tfs.forEach((tf) => terms.put({ id: randomUUID(), threadId: null, isArchived: false, terms: ["kayak"], tfs: [tf] }));
        const scores = await terms.bm25([{ term: "kayak", weight: 1 }]);
        // weight·tf·(k1 + 1)/(tf + k1) with k1 0.9, best first
        const sorted = tfs.map((tf) => (tf * 1.9) / (tf + 0.9)).sort((a, b) => b - a);
        const threshold = sorted[SCORED - 1]!;
        expect(scores.size).toBe(SCORED);
        const kept = [...scores.values()];
        expect(Math.min(...kept)).toBeCloseTo(threshold, 12);
        expect(kept.filter((score) => score > threshold + 1e-12).length).toBe(sorted.filter((score) => score > threshold + 1e-12).length);
      }),
      { numRuns: 20 },
    );
  });
});

describe("UserTerms and expiry", () => {
  it("lets each memory go at its expiry, in any order of puts, and keeps a changed expiry's new instant", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }), { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 110 }), async (expiries, now) => {
        const terms = new UserTerms();
        const ids = expiries.map(() => randomUUID());
        const put = (i: number, at: number | null) =>
          terms.put({ id: ids[i]!, threadId: "t", isArchived: false, expiresAt: at === null ? null : new Date(at), terms: ["otter"], tfs: [1] });
        // first all expiring at 1, then at their own instant: the stale entries must not take them out early
        expiries.forEach((_, i) => put(i, 1));
        expiries.forEach((at, i) => put(i, at));
        terms.dropExpired(now);
        const live = ids.filter((_, i) => expiries[i] === null || expiries[i]! > now);
        expect((await terms.stats(["otter"])).n).toBe(live.length);
        const slots = [...(await terms.bm25([{ term: "otter", weight: 1 }])).keys()];
        expect(slots.map((slot) => terms.idOf(slot)).sort()).toEqual([...live].sort());
        expect((await terms.nextInThread(slots)).length).toBe(Math.max(0, live.length - 1));
      }),
      { numRuns: 50 },
    );
  });
});

describe("UserTerms' keys while a search holds them", () => {
  const memory = (id: string) => ({ id, threadId: null, isArchived: false, terms: ["heron"], tfs: [1] });

  it("names the same memory until released, though it is taken out and another put in meanwhile", async () => {
    const terms = new UserTerms();
    const [gone, kept, added] = [randomUUID(), randomUUID(), randomUUID()];
    terms.put(memory(gone));
    terms.put(memory(kept));
    const slots = [...(await terms.bm25([{ term: "heron", weight: 1 }])).keys()];
    const release = terms.hold();
    terms.remove(gone);
    terms.put(memory(added));
    expect(slots.map((slot) => terms.idOf(slot)).sort()).toEqual([gone, kept].sort());
    const now = [...(await terms.bm25([{ term: "heron", weight: 1 }])).keys()];
    expect(now.map((slot) => terms.idOf(slot)).sort()).toEqual([kept, added].sort());
    release();
    // once released, the freed slot is taken again rather than the copy growing
    terms.remove(added);
    terms.put(memory(randomUUID()));
    const after = [...(await terms.bm25([{ term: "heron", weight: 1 }])).keys()];
    expect(Math.max(...after)).toBeLessThan(3);
  });
});
