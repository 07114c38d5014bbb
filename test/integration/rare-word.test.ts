import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embeddings/embedder.ts";
import { tokenize } from "../../src/text/tokenize.ts";
import { databaseUnavailable, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

const MEMORIES = 1_500;
const PROBES = 200;

/** Made-up words, one per memory, each a single term of its own to the tokenizer. */
function rareWords(count: number): string[] {
  const onsets = ["b", "d", "f", "g", "k", "m", "p", "t", "v", "z", "br", "gl", "kr", "pl", "st", "tr"];
  const vowels = ["a", "e", "i", "o", "u"];
  const words = new Set<string>();
  for (let n = 0; words.size < count; n++) {
    let x = n * 7919 + 104_729;
    let word = "";
    for (let syllable = 0; syllable < 3; syllable++) {
      word += onsets[x % onsets.length]! + vowels[Math.floor(x / onsets.length) % vowels.length]!;
      x = Math.floor(x / (onsets.length * vowels.length));
    }
    word += "x";
    if (tokenize(word).join(" ") === word) words.add(word);
  }
  return [...words];
}

const DIMENSIONS = 64;
/** How far, in cosine, the vectors put a query's decoy above the memory that holds its word. */
const DECOY_GAP = 0.2;

/** A unit vector of its own for each word, from its hash. */
function direction(word: string): number[] {
  const bytes = createHash("sha512").update(word).digest();
  const vector = Array.from({ length: DIMENSIONS }, (_, i) => bytes[i]! - 127.5);
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

/**
 * An embedder that misleads, and costs no inference (the sentence encoder took about 15 CPU-seconds for these
 * notes): each note's vector is one direction all share plus a smaller one of its own word's, so that any two
 * notes are about 1 - DECOY_GAP alike, as templated notes are to a real encoder; and a query for a word gets the
 * vector of the next word's note. The vectors alone rank that decoy first, DECOY_GAP of cosine above the note
 * that holds the word: search must weigh BM25 in enough to outweigh such a gap.
 */
function misleadingEmbedder(words: readonly string[]): Embedder {
  const decoy = new Map(words.map((word, i) => [word, words[(i + 1) % words.length]!]));
  const own = Math.sqrt(DECOY_GAP);
  const shared = Math.sqrt(1 - DECOY_GAP);
  const noteVector = (word: string) => Float32Array.from(direction(word), (x, i) => own * x + (i === 0 ? shared : 0));
  return {
    id: "misleading:64",
    dimensions: DIMENSIONS,
    deferWrites: false,
    async embed(texts) {
      return texts.map((text) => {
        const word = decoy.get(text) ?? /bring the (\w+)/.exec(text)?.[1] ?? text;
        const vector = noteVector(word);
        const norm = Math.hypot(...vector);
        return vector.map((x) => x / norm);
      });
    },
  };
}

// Search blends BM25 into the vectors' ranking, so that the one memory holding a word searched for comes first
// even where the vectors rank others above it.
describe.skipIf(databaseUnavailable())("search for a word that occurs in exactly one memory", () => {
  let server: TestServer;
  let user: TestUser;
  const words = rareWords(MEMORIES);
  const ids: string[] = [];
  const embedder = misleadingEmbedder(words);

  beforeAll(async () => {
    server = await startTestServer({}, { embedder });
    user = await server.newUser();
    for (let start = 0; start < MEMORIES; start += 100) {
      const items = words.slice(start, start + 100).map((word, i) => ({
        content: `Weekly planning note ${start + i}: bring the ${word} to the team meeting on Thursday morning`,
      }));
      const res = await user.api.post("/api/v1/memory/batch", items);
      expect(res.status).toBe(200);
      ids.push(...res.body.results.map((result: { id: string }) => result.id));
    }
  });
  afterAll(() => server?.close());

  it("is given vectors that rank a decoy first, by about DECOY_GAP", async () => {
    const note = (i: number) => `Weekly planning note ${i}: bring the ${words[i]} to the team meeting on Thursday morning`;
    const [query, target, decoy] = await embedder.embed([words[7]!, note(7), note(8)]);
    const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
    expect(cosine(query!, decoy!)).toBeCloseTo(1, 5);
    expect(1 - cosine(query!, target!)).toBeGreaterThan(DECOY_GAP - 0.05);
  });

  it(`finds each of ${PROBES} memories first by its one unique word, every time`, async () => {
    const misses: string[] = [];
    for (let k = 0; k < PROBES; k++) {
      const i = Math.floor((k * MEMORIES) / PROBES);
      const res = await user.api.get(`/api/v1/memory/search?query=${words[i]}&limit=3`);
      expect(res.status).toBe(200);
      if (res.body.results[0]?.id !== ids[i]) misses.push(words[i]!);
    }
    expect(misses).toEqual([]);
  }, 120_000);
});
