import { ConfigError, type Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import type { Embedder } from "./embedder.ts";
import { SentenceEncoder } from "./sentence-encoder.ts";

/**
 * The embedder EMBEDDER names (by default the offline sentence encoder, or OpenAI's when it is configured).
 * The OpenAI client is loaded only when it is the one: it adds a twentieth of a second to every start.
 */
export async function openEmbedder(
  config: Config,
  logger?: Logger,
  /** The size of an OpenAI-compatible endpoint's vectors as stored before, for an endpoint down at start. */
  remembered?: (idStem: string) => Promise<number | undefined>,
): Promise<Embedder> {
  switch (config.embedder) {
    case "openai": {
      const { EmbeddingError, OpenAIEmbedder } = await import("./openai.ts");
      const rememberedSaid =
        remembered &&
        (async (stem: string) => {
          const dimensions = await remembered(stem);
          if (dimensions !== undefined) {
            logger?.warn(
              { embedder: `${stem}${dimensions}` },
              "the embedder did not answer at start: its vectors are taken to be as long as those it made before; writes are stored and embedded once it answers",
            );
          }
          return dimensions;
        });
      return OpenAIEmbedder.create(config.openai!, {}, rememberedSaid).catch((error: unknown) => {
        if (!(error instanceof EmbeddingError)) throw error;
        const settings = config.openai!.baseUrl ? "OPENAI_BASE_URL" : "OPENAI_API_KEY";
        throw new ConfigError(`The embedder could not be used (${settings}, EMBEDDING_MODEL): ${error.message}`, { cause: error });
      });
    }
    case "hash":
      return new BuiltinEmbedder();
    case "use":
      return SentenceEncoder.create({ threads: config.embeddingThreads, logger });
  }
}
