/** Who waits for an embedding: a request (a query) or nobody in particular (the outbox, a rebuild). */
export type EmbedPriority = "interactive" | "background";

/**
 * Turns texts into vectors. Vectors made by different embedders (or the same model at other dimensions) are
 * not comparable, so every stored vector records the `id` of the embedder that made it, and a search only
 * ever compares vectors of one `id`.
 */
export interface Embedder {
  /** Model and dimensions, e.g. "builtin-hash-v1:512" or "openai:text-embedding-3-small:1536". */
  readonly id: string;
  readonly dimensions: number;
  /**
   * True when embedding is too slow for a write to wait for: writes are acknowledged at once (lexically
   * searchable at once) and the indexer's outbox embeds them in the background.
   */
  readonly deferWrites: boolean;
  /** One L2-normalised vector per text, in order. Implementations batch as their backend allows. */
  embed(texts: readonly string[], priority?: EmbedPriority): Promise<Float32Array[]>;
  /**
   * A quick approximation of `embed(text)` in the same vector space, made without inference (no I/O, a fraction
   * of a millisecond): for an embedder that defers writes, the vector a new memory is indexed under until its
   * real one lands. Undefined when the embedder has none for this text.
   */
  draft?(text: string): Float32Array | undefined;
  /** For an embedder that loads after the service starts: resolves once it can embed, rejects if it never will. */
  ready?(): Promise<void>;
  /** Releases threads or connections the embedder holds. */
  close?(): Promise<void>;
}

/** What a request that waited EMBEDDER_WAIT_MS for the embedder in vain is told (waitAtMost). */
export const embedderLate = (ms: number): string => `the embedder did not answer within ${ms} ms (EMBEDDER_WAIT_MS)`;
