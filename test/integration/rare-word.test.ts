import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenize } from "../../src/text/tokenize.ts";
import { databaseUnavailable, databaseUnderTest, startTestServer, type TestServer, type TestUser } from "../support/server.ts";
import { vectorsLanded } from "../support/vectors.ts";

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

// Among a thousand near-identical memories the vectors barely differ, so a vector index alone may rank others
// above the one memory holding the word searched for; search blends in BM25, which may not. With BM25's weight set
// to 0, the vectors alone missed more than a dozen of the 200 words among 1 500 memories, so that many are enough
// (5 000 took two minutes of the suite). Embedding them takes about 15 CPU-seconds, so this runs on the embedded
// database only: search's SQL is the same on PostgreSQL, where semantic-search.test.ts covers it.
describe.runIf(databaseUnderTest() === "pglite" && !databaseUnavailable())("search for a word that occurs in exactly one memory", () => {
  let server: TestServer;
  let user: TestUser;
  const words = rareWords(MEMORIES);
  const ids: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ EMBEDDER: "auto" });
    user = await server.newUser();
    for (let start = 0; start < MEMORIES; start += 100) {
      const items = words.slice(start, start + 100).map((word, i) => ({
        content: `Weekly planning note ${start + i}: bring the ${word} to the team meeting on Thursday morning`,
      }));
      const res = await user.api.post("/api/v1/memory/batch", items);
      expect(res.status).toBe(200);
      ids.push(...res.body.results.map((result: { id: string }) => result.id));
    }
    await vectorsLanded(server.app.db, 600);
  }, 660_000);
  afterAll(() => server?.close());

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
