import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("EMBEDDER", () => {
  it("is the offline sentence encoder by default, and OpenAI's when an endpoint is configured", () => {
    expect(loadConfig({}).embedder).toBe("use");
    expect(loadConfig({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }).embedder).toBe("openai");
    expect(loadConfig({ OPENAI_API_KEY: "sk-test" }).embedder).toBe("openai");
  });

  it("names one embedder whatever else is set", () => {
    expect(loadConfig({ EMBEDDER: "hash", OPENAI_API_KEY: "sk-test" }).embedder).toBe("hash");
    expect(loadConfig({ EMBEDDER: "use", OPENAI_API_KEY: "sk-test" }).embedder).toBe("use");
  });

  it("names the settings the rest leaves unused, and only those", () => {
    expect(loadConfig({ OPENAI_API_KEY: "sk-test", EMBEDDING_DIMENSIONS: "256" }).unused).toEqual([]);
    expect(loadConfig({ EMBEDDER: "hash", OPENAI_API_KEY: "sk-test", EMBEDDING_MODEL: "m", EMBEDDING_THREADS: "2" }).unused).toEqual([
      "OPENAI_API_KEY is set but unused: EMBEDDER is hash",
      "EMBEDDING_MODEL is set but unused: EMBEDDER is hash",
      "EMBEDDING_THREADS is set but unused: EMBEDDER is hash, not the sentence encoder",
    ]);
    expect(loadConfig({ DATABASE_URL: "postgres://127.0.0.1/x", PGLITE_SHARED_BUFFERS_MB: "64", DATABASE_POOL_SIZE: "5" }).unused).toEqual([
      "PGLITE_SHARED_BUFFERS_MB is set but unused: DATABASE_URL is set (PostgreSQL, not the embedded database)",
    ]);
    expect(loadConfig({ DATABASE_POOL_SIZE: "5", QDRANT_URL: "http://127.0.0.1:6333", VECTOR_INDEX: "exact", DEDUPE_NEAR_SIMILARITY: "0.9" }).unused).toEqual([
      "DATABASE_POOL_SIZE is set but unused: DATABASE_URL is not set (the embedded database)",
      "VECTOR_INDEX is set but unused: QDRANT_URL is set (Qdrant is the vector index)",
      "DEDUPE_NEAR_SIMILARITY is set but unused: DEDUPE is off: only near compares similarity",
    ]);
    expect(loadConfig({ DEDUPE: "near", DEDUPE_NEAR_SIMILARITY: "0.9" }).unused).toEqual([]);
  });

  it("refuses an unknown embedder, and openai without an endpoint, naming the variable", () => {
    expect(() => loadConfig({ EMBEDDER: "bert" })).toThrow(/EMBEDDER/);
    expect(() => loadConfig({ EMBEDDER: "openai" })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDER: "openai" })).toThrow(/OPENAI_API_KEY or OPENAI_BASE_URL/);
  });

  it("runs the sentence encoder on 1 to 64 threads", () => {
    expect(loadConfig({ EMBEDDING_THREADS: "3" }).embeddingThreads).toBe(3);
    expect(loadConfig({}).embeddingThreads).toBeGreaterThanOrEqual(1);
    expect(() => loadConfig({ EMBEDDING_THREADS: "0" })).toThrow(/EMBEDDING_THREADS/);
  });
});
