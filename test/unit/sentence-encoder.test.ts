import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SentenceEncoder } from "../../src/embeddings/sentence-encoder.ts";

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("the sentence encoder (worker threads)", () => {
  let encoder: SentenceEncoder;
  beforeAll(async () => {
    encoder = SentenceEncoder.create({ threads: 2 });
    await encoder.ready();
  });
  afterAll(() => encoder?.close());

  it("relates texts by meaning, not wording", async () => {
    const [question, dog, marathon] = await encoder.embed([
      "what kind of dog do I have?",
      "I adopted a golden retriever named Biscuit",
      "I run a marathon every spring",
    ]);
    expect(cosine(question!, dog!)).toBeGreaterThan(cosine(question!, marathon!) + 0.2);
  });

  it("gives each caller its own vectors when many calls are batched together, in order", async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `note number ${i}: ${i % 2 ? "buy milk and eggs" : "call the plumber"}`);
    const together = await encoder.embed(texts, "background");
    const apart = await Promise.all(texts.map((text, i) => encoder.embed([text], i % 3 ? "interactive" : "background")));
    expect(together).toHaveLength(40);
    apart.forEach(([vector], i) => expect(cosine(vector!, together[i]!)).toBeCloseTo(1, 4));
    expect(cosine(together[0]!, together[1]!)).toBeLessThan(0.99);
  });

  it("makes unit vectors of 512 dimensions, for blank and very long texts too", async () => {
    const vectors = await encoder.embed(["", "   ", "word ".repeat(20_000), "🎉"]);
    for (const vector of vectors) {
      expect(vector).toHaveLength(512);
      expect(cosine(vector, vector)).toBeCloseTo(1, 4);
    }
    expect(encoder.id).toBe("use-lite@0.2.0:512");
  });

  it("refuses work once closed", async () => {
    const other = SentenceEncoder.create({ threads: 1 });
    await other.ready();
    await other.close();
    await expect(other.embed(["anything at all"])).rejects.toThrow(/closed/);
  });

  it("starts at once: what is asked before the model has loaded is answered once it has", async () => {
    const starting = SentenceEncoder.create({ threads: 1 });
    try {
      expect(starting.dimensions).toBe(512);
      const [early] = await starting.embed(["asked while the model loads"]);
      const [later] = await encoder.embed(["asked while the model loads"]);
      expect(early).toHaveLength(512);
      expect(cosine(early!, later!)).toBeGreaterThan(0.999);
      await starting.ready();
    } finally {
      await starting.close();
    }
  });
});
