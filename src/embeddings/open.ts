import type { Config } from "../config.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import type { Embedder } from "./embedder.ts";
import { OpenAIEmbedder } from "./openai.ts";

/** The built-in offline embedder unless an OpenAI-compatible endpoint is configured. */
export async function openEmbedder(config: Config): Promise<Embedder> {
  return config.openai ? OpenAIEmbedder.create(config.openai) : new BuiltinEmbedder();
}
