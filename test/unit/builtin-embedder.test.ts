import { describe, expect, it } from "vitest";
import { BuiltinEmbedder, DEFAULT_DIMENSIONS } from "../../src/embeddings/builtin.ts";

const cosine = (a: Float32Array, b: Float32Array): number => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
};

const norm = (v: Float32Array): number => Math.sqrt(cosine(v, v));

async function one(embedder: BuiltinEmbedder, text: string): Promise<Float32Array> {
  const [vector] = await embedder.embed([text]);
  if (vector === undefined) throw new Error("no vector");
  return vector;
}

describe("BuiltinEmbedder", () => {
  const embedder = new BuiltinEmbedder();

  it("names its feature function and dimensions", () => {
    expect(embedder.dimensions).toBe(DEFAULT_DIMENSIONS);
    expect(embedder.id).toBe(`builtin-hash-v1:${DEFAULT_DIMENSIONS}`);
    const small = new BuiltinEmbedder(256);
    expect(small.id).toBe("builtin-hash-v1:256");
    expect(small.dimensions).toBe(256);
  });

  it("rejects impossible dimensions", () => {
    expect(() => new BuiltinEmbedder(0)).toThrow(RangeError);
    expect(() => new BuiltinEmbedder(12.5)).toThrow(RangeError);
  });

  it("returns one unit vector per text, in order", async () => {
    const texts = ["I adopted a puppy", "", "We went hiking in the mountains", "🎉"];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const [i, v] of vectors.entries()) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(DEFAULT_DIMENSIONS);
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(v).toEqual(await one(embedder, texts[i]!));
    }
    expect(await embedder.embed([])).toEqual([]);
  });

  it("is deterministic across instances and whatever was embedded before", async () => {
    const text = "Melanie painted a sunrise over the lake last summer.";
    const fresh = await one(new BuiltinEmbedder(), text);
    const busy = new BuiltinEmbedder();
    // enough distinct features to make the embedder grow its scratch tables first
    const distinct = Array.from({ length: 3_000 }, (_, i) => `w${i}`).join(" ");
    await busy.embed([distinct]);
    expect(await one(busy, text)).toEqual(fresh);
  });

  it("keeps its feature function: a change here must bump the id's version", async () => {
    // Stored vectors stay comparable only while this holds; the hash works on UTF-16 code units with 32-bit
    // integer arithmetic, so it holds on every platform.
    const v = await one(embedder, "Melanie painted a sunrise over the lake last summer.");
    const nonZero = [...v.entries()].filter(([, x]) => x !== 0);
    expect(nonZero).toHaveLength(68);
    expect(nonZero.slice(0, 5).map(([i]) => i)).toEqual([0, 4, 15, 33, 36]);
    expect(v[36]).toBeCloseTo(-0.084644, 6);
    expect(v.reduce((sum, x, i) => sum + x * (i + 1), 0)).toBeCloseTo(-447.683592, 3);
  });

  it("ignores case, accents and stop words", async () => {
    expect(await one(embedder, "CAFÉ Résumé")).toEqual(await one(embedder, "cafe resume"));
    expect(await one(embedder, "the garden")).toEqual(await one(embedder, "a garden"));
  });

  it("ranks texts sharing wording above texts that do not", async () => {
    const query = await one(embedder, "When did Melanie paint a sunrise?");
    const [related, unrelated] = await embedder.embed([
      "Melanie: I painted a sunrise over the lake last year.",
      "Caroline: We went camping with the kids in June.",
    ]);
    expect(cosine(query, related!)).toBeGreaterThan(cosine(query, unrelated!) + 0.3);
  });

  it("matches word forms and small spelling slips", async () => {
    const query = await one(embedder, "career in education");
    const [slip, other] = await embedder.embed(["carreer in educaton", "a holiday at the beach"]);
    expect(cosine(query, slip!)).toBeGreaterThan(0.25);
    expect(cosine(query, slip!)).toBeGreaterThan(cosine(query, other!) + 0.2);
    const painting = await one(embedder, "she loves painting landscapes");
    const [painted, cooking] = await embedder.embed(["she painted a landscape", "she loves cooking pasta"]);
    expect(cosine(painting, painted!)).toBeGreaterThan(cosine(painting, cooking!));
  });

  it("gives texts without words a valid vector: empty and blank share one, symbols stand for themselves", async () => {
    const [empty, blank, party, parties, rocket] = await embedder.embed(["", "  \n\t ", "🎉", "🎉 🎉", "🚀"]);
    for (const v of [empty!, blank!, party!, parties!, rocket!]) {
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(blank).toEqual(empty);
    expect(cosine(party!, parties!)).toBeCloseTo(1, 5);
    expect(Math.abs(cosine(party!, rocket!))).toBeLessThan(0.5);
    expect(party).not.toEqual(empty);
  });

  it("embeds very long text", async () => {
    const long = Array.from({ length: 200_000 }, (_, i) => `word${i % 5_000} common`).join(" ");
    const v = await one(embedder, long);
    expect(v.every(Number.isFinite)).toBe(true);
    expect(norm(v)).toBeCloseTo(1, 5);
  });

  it("gives CJK text features of its own", async () => {
    const [tokyo, tokyoAgain, kyoto, empty] = await embedder.embed(["東京に住んでいます", "東京が好きです", "大阪で働く", ""]);
    expect(tokyo).not.toEqual(empty);
    expect(cosine(tokyo!, tokyoAgain!)).toBeGreaterThan(cosine(tokyo!, kyoto!));
  });
});
