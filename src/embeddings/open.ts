import type { Config } from "../config.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import type { Embedder } from "./embedder.ts";
import { OpenAIEmbedder } from "./openai.ts";
import { SentenceEncoder } from "./sentence-encoder.ts";

/** The embedder EMBEDDER names (by default the offline sentence encoder, or OpenAI's when it is configured). */
export async function openEmbedder(config: Config): Promise<Embedder> {
  switch (config.embedder) {
    case "openai":
      return OpenAIEmbedder.create(config.openai!);
    case "hash":
      return new BuiltinEmbedder();
    case "use":
      return SentenceEncoder.create({ threads: config.embeddingThreads });
  }
}
