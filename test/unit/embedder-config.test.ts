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
