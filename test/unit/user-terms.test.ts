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
