import { BuiltinEmbedder } from "../../src/embeddings/builtin.ts";
import type { Embedder } from "../../src/embeddings/embedder.ts";

/** The built-in (hashed) embedder, as the test server runs it, recording how many texts each call embeds. */
export function countingEmbedder(): Embedder & { calls: number[] } {
  const inner = new BuiltinEmbedder();
  const calls: number[] = [];
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    deferWrites: false,
    calls,
    embed(texts) {
      calls.push(texts.length);
      return inner.embed(texts);
    },
  };
}
