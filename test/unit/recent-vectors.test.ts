import { describe, expect, it } from "vitest";
import { RecentVectors } from "../../src/embeddings/recent-vectors.ts";

/** An embedder of `dimensions` floats that counts its calls and can be held until `release()`. */
function embedder(dimensions = 4) {
  const asked: string[] = [];
  let release: () => void = () => {};
  let held: Promise<void> = Promise.resolve();
  return {
    asked,
    hold() {
      held = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    embed: async (text: string) => {
      asked.push(text);
      await held;
      if (text === "fails") throw new Error("endpoint down");
      return new Float32Array(dimensions).fill(text.length);
    },
  };
}

describe("RecentVectors", () => {
  it("answers a user's repeated query with the same vector, embedded once", async () => {
    const recent = new RecentVectors(100);
    const model = embedder();
    const first = await recent.of("u1", "where did I park?", model.embed);
    expect(await recent.of("u1", "where did I park?", model.embed)).toBe(first);
    expect(model.asked).toEqual(["where did I park?"]);
  });

  it("embeds again for another user: a hit is not shared across users", async () => {
    const recent = new RecentVectors(100);
    const model = embedder();
    await recent.of("u1", "same words", model.embed);
    await recent.of("u2", "same words", model.embed);
    expect(model.asked).toEqual(["same words", "same words"]);
  });

  it("joins the embedding under way rather than starting a second", async () => {
    const recent = new RecentVectors(100);
    const model = embedder();
    model.hold();
    const both = Promise.all([recent.of("u1", "asked twice at once", model.embed), recent.of("u1", "asked twice at once", model.embed)]);
    model.release();
    const [a, b] = await both;
    expect(a).toBe(b);
    expect(model.asked).toHaveLength(1);
  });

  it("keeps no failure: the next ask tries again", async () => {
    const recent = new RecentVectors(100);
    const model = embedder();
    await expect(recent.of("u1", "fails", model.embed)).rejects.toThrow("endpoint down");
    await expect(recent.of("u1", "fails", model.embed)).rejects.toThrow("endpoint down");
    expect(model.asked).toEqual(["fails", "fails"]);
  });

  it("holds at most its floats, forgetting the least recently used first", async () => {
    const recent = new RecentVectors(8); // two vectors of 4
    const model = embedder();
    await recent.of("u1", "a", model.embed);
    await recent.of("u1", "bb", model.embed);
    await recent.of("u1", "a", model.embed); // "a" is now the most recent
    await recent.of("u1", "ccc", model.embed); // "bb" goes
    await recent.of("u1", "a", model.embed);
    await recent.of("u1", "ccc", model.embed);
    expect(model.asked).toEqual(["a", "bb", "ccc"]);
    await recent.of("u1", "bb", model.embed);
    expect(model.asked).toEqual(["a", "bb", "ccc", "bb"]);
  });

  it("keeps a vector larger than the whole bound until the next comes", async () => {
    const recent = new RecentVectors(2);
    const model = embedder(4);
    const big = await recent.of("u1", "big", model.embed);
    expect(await recent.of("u1", "big", model.embed)).toBe(big);
    await recent.of("u1", "next", model.embed);
    await recent.of("u1", "big", model.embed);
    expect(model.asked).toEqual(["big", "next", "big"]);
  });
});
