import { readFile } from "node:fs/promises";
import { projectPath } from "../project-root.ts";
import { words } from "../text/tokenize.ts";
import { unitLength } from "../vectors/codec.ts";

/** Where `npm run build` writes the table (scripts/build-word-vectors.mjs). */
export const WORD_VECTORS_FILE = projectPath("dist", "word-vectors.bin");

/** What the file's header says of its contents: a table is used only with the model and vocabulary it was made from. */
export interface WordVectorsHeader {
  /** The sentence encoder's id (SentenceEncoder.id) whose vectors of single words the table holds. */
  model: string;
  /** The word list and its version, most frequent first. */
  vocabulary: string;
  dimensions: number;
  /** The words, normalised as `words()` gives them; row i of the table is words[i]'s vector. */
  words: string[];
}

/** Only the beginning of a long text counts, as for the encoder itself: the draft's cost stays bounded. */
const MAX_CHARS = 2_000;
/**
 * Every word's vector shares a common direction (what the encoder gives any short text), which a mean of words
 * piles up: a draft subtracts this share of the mean of the COMMON_WORDS most frequent words' vectors for each
 * word it adds. Tuned on the LoCoMo development split (vector-only recall@10 of drafts: 0.372 without, 0.488
 * with; the encoder's own vectors 0.458); it leaves the paraphrase fixture's ranks as they were.
 */
const CENTERING = 0.75;
const COMMON_WORDS = 1_000;

/**
 * A draft of the sentence encoder's vector of a text, made without inference: the mean of the encoder's own
 * vectors of the text's words, each word embedded alone once, at build time (Model2Vec-style static
 * embeddings). A memory is searchable by meaning with its draft the moment it is written, at about a tenth of a
 * millisecond, and the encoder's real vector replaces the draft in the background.
 *
 * The draft lives in the encoder's vector space (its vectors are the encoder's), so a query embedded by the
 * encoder is compared with it directly. It is weaker than the encoder at paraphrases: on the paraphrase fixture
 * a question's memory ranks first for 21 of 30 questions with drafts, 27 with the encoder (bench:embedder).
 *
 * The table: the 40 000 most frequent spoken-English words (SUBTLEX-US), int8 with one scale per word, 20 MB.
 */
export class WordVectors {
  /** CENTERING times the mean vector of the most frequent words (the table is in order of frequency). */
  private readonly common: Float32Array;

  private constructor(
    private readonly rows: ReadonlyMap<string, number>,
    private readonly scales: Float32Array,
    private readonly values: Int8Array,
    readonly dimensions: number,
  ) {
    this.common = new Float32Array(dimensions);
    const count = Math.min(COMMON_WORDS, scales.length);
    for (let row = 0; row < count; row++) this.addRow(this.common, row, CENTERING / count);
  }

  /** The table built for `model`, or undefined when there is none (not built) or it was built for another model. */
  static async load(model: string, file = WORD_VECTORS_FILE): Promise<WordVectors | undefined> {
    const bytes = await readTable(file);
    if (!bytes) return undefined;
    const { header, scales, values } = decode(bytes);
    if (header.model !== model) return undefined;
    return new WordVectors(new Map(header.words.map((word, row) => [word, row])), scales, values, header.dimensions);
  }

  /** How many words the table holds. */
  get size(): number {
    return this.rows.size;
  }

  /** The draft of a text's vector (unit length), or undefined when none of its words is in the table. */
  draft(text: string): Float32Array | undefined {
    const sum = new Float32Array(this.dimensions);
    let found = 0;
    for (const word of words(text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text)) {
      const row = this.rows.get(word);
      if (row === undefined) continue;
      this.addRow(sum, row, 1);
      found++;
    }
    if (found === 0) return undefined;
    for (let d = 0; d < this.dimensions; d++) sum[d]! -= found * this.common[d]!;
    return unitLength(sum);
  }

  /** Adds `weight` times the row's vector to `sum`. */
  private addRow(sum: Float32Array, row: number, weight: number): void {
    const scale = this.scales[row]! * weight;
    const base = row * this.dimensions;
    for (let d = 0; d < this.dimensions; d++) sum[d]! += scale * this.values[base + d]!;
  }
}

/**
 * The file: a 4-byte little-endian length, the JSON header padded with spaces to a multiple of 4 bytes, the
 * float32 scales (one a word), then the int8 components (dimensions a word). Written and read by this module alone.
 */
export function encodeWordVectors(header: WordVectorsHeader, vectors: readonly Float32Array[]): Buffer {
  const json = JSON.stringify(header);
  const headerBytes = Buffer.from(json.padEnd(json.length + ((4 - ((Buffer.byteLength(json) + 4) % 4)) % 4), " "));
  const scales = new Float32Array(vectors.length);
  const values = new Int8Array(vectors.length * header.dimensions);
  vectors.forEach((vector, row) => {
    let max = 0;
    for (const x of vector) max = Math.max(max, Math.abs(x));
    scales[row] = max / 127;
    vector.forEach((x, d) => (values[row * header.dimensions + d] = max === 0 ? 0 : Math.round((x / max) * 127)));
  });
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  return Buffer.concat([length, headerBytes, Buffer.from(scales.buffer), Buffer.from(values.buffer)]);
}

/** The header of the table in `file`, or undefined when there is none. */
export async function readWordVectorsHeader(file = WORD_VECTORS_FILE): Promise<WordVectorsHeader | undefined> {
  const bytes = await readTable(file);
  return bytes && decodeHeader(bytes).header;
}

async function readTable(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function decodeHeader(bytes: Buffer): { header: WordVectorsHeader; headerLength: number } {
  const headerLength = bytes.readUInt32LE(0);
  return { header: JSON.parse(bytes.subarray(4, 4 + headerLength).toString("utf8")) as WordVectorsHeader, headerLength };
}

function decode(bytes: Buffer): { header: WordVectorsHeader; scales: Float32Array; values: Int8Array } {
  const { header, headerLength } = decodeHeader(bytes);
  const count = header.words.length;
  const start = 4 + headerLength;
  // copied out of the file's buffer, which Node may have placed in a shared pool at any alignment
  const scales = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + count * 4));
  const values = new Int8Array(bytes.buffer.slice(bytes.byteOffset + start + count * 4, bytes.byteOffset + start + count * 4 + count * header.dimensions));
  if (values.length !== count * header.dimensions) throw new Error(`${WORD_VECTORS_FILE} is truncated; run npm run build`);
  return { header, scales, values };
}
