import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { serverOptions } from "../../src/http/server-options.ts";
import { listenWhileStarting } from "../../src/http/starting-server.ts";

describe("a setting the server cannot start with", () => {
  it.each([
    ["PORT", "70000", "PORT: expected a whole number from 0 to 65535"],
    ["PORT", "http", "PORT: expected a whole number from 0 to 65535"],
    ["RATE_LIMIT_MAX", "0", "RATE_LIMIT_MAX: expected a whole number of at least 1"],
    ["WEBHOOK_MAX_ATTEMPTS", "1.5", "WEBHOOK_MAX_ATTEMPTS: expected a whole number"],
    // beyond a Node.js timer's 2^31 - 1 ms: the limiters' windows overflowed to 1 ms and limited nothing
    ["RATE_LIMIT_WINDOW_SECONDS", "2592000", "RATE_LIMIT_WINDOW_SECONDS: expected a whole number from 1 to 2147483"],
    ["AUTH_FAILURE_WINDOW_SECONDS", "2592000", "AUTH_FAILURE_WINDOW_SECONDS: expected a whole number from 1 to 2147483"],
    ["SHUTDOWN_TIMEOUT_MS", "2147483647", "SHUTDOWN_TIMEOUT_MS: expected a whole number from 0 to 3600000"],
    // Number() read " " as 0 (a random port; MAX_TAGS=" " refused every tag) and took hexadecimal and exponents
    ["PORT", " ", "PORT: expected a whole number from 0 to 65535"],
    ["MAX_TAGS", "\t", "MAX_TAGS: expected a whole number from 0 to 1000"],
    ["PORT", "0x1000", "PORT: expected a whole number from 0 to 65535"],
    ["PORT", "4e3", "PORT: expected a whole number from 0 to 65535"],
    ["DEDUPE_NEAR_SIMILARITY", " ", "DEDUPE_NEAR_SIMILARITY: expected a number from 0 to 1"],
    ["DEDUPE_NEAR_SIMILARITY", "0x1", "DEDUPE_NEAR_SIMILARITY: expected a number from 0 to 1"],
    ["DEDUPE_NEAR_SIMILARITY", "1.5", "DEDUPE_NEAR_SIMILARITY: expected a number from 0 to 1"],
    // at 2^53 the deliveries listing answered 500 (a due time past PostgreSQL's timestamps)
    ["WEBHOOK_RETRY_BASE_MS", "9007199254740991", "WEBHOOK_RETRY_BASE_MS: expected a whole number from 1 to 86400000"],
    // PGlite's 32-bit heap: 2048 passed the check and the start failed with a stack trace
    ["PGLITE_SHARED_BUFFERS_MB", "2048", "PGLITE_SHARED_BUFFERS_MB: expected a whole number from 1 to 1024"],
    // the embedder refused these at start, with a stack trace (helper-18); Qdrant's client dropped the query
    ["OPENAI_BASE_URL", "http://user:pw@127.0.0.1:4810/v1", "OPENAI_BASE_URL: must have no user, password, query or fragment"],
    ["OPENAI_BASE_URL", "http://127.0.0.1:4810/v1?x=1", "OPENAI_BASE_URL: must have no user, password, query or fragment"],
    ["QDRANT_URL", "http://127.0.0.1:6333/?collection=x", "QDRANT_URL: must have no user, password, query or fragment"],
    // each scheme taken is named: "expected a http:// URL" refused ftp://, though https:// was taken (outside probe)
    ["QDRANT_URL", "ftp://x", "QDRANT_URL: expected a URL starting http:// or https://"],
    ["REDIS_URL", "http://x", "REDIS_URL: expected a URL starting redis:// or rediss://"],
  ])("%s=%s is refused with the range it must be in", (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it.each([
    [{ EMBEDDER: "openai" }, "EMBEDDER: openai needs OPENAI_API_KEY or OPENAI_BASE_URL"],
    [{ QDRANT_API_KEY: "k" }, "QDRANT_API_KEY: set without QDRANT_URL, it would go unused"],
    [{ HTTP_HEADERS_TIMEOUT_SECONDS: "60" }, "HTTP_HEADERS_TIMEOUT_SECONDS: at most HTTP_REQUEST_TIMEOUT_SECONDS (30), which bounds the headers too"],
  ])("%o is refused: the settings contradict each other", (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(`Invalid configuration:\n  ${message}`));
  });

  it("keeps the default headers' timeout within a shorter request timeout", () => {
    expect(serverOptions(loadConfig({ HTTP_REQUEST_TIMEOUT_SECONDS: "5" }).http)).toMatchObject({ headersTimeout: 5000, requestTimeout: 5000 });
  });

  it("takes a number written in decimal digits, spaces around it aside", () => {
    expect(loadConfig({ PORT: " 4001 ", MAX_TAGS: "0", DEDUPE_NEAR_SIMILARITY: ".9" })).toMatchObject({
      port: 4001,
      limits: { maxTags: 0 },
      dedupe: { nearSimilarity: 0.9 },
    });
  });

  it("HOST that is no address here, or PORT in use: the listen failure names the setting", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      await expect(listenWhileStarting(loadConfig({ HOST: "127.0.0.1", PORT: String(port) }))).rejects.toThrow(
        new ConfigError(`Cannot listen on 127.0.0.1:${port}: PORT ${port} is in use by another process`),
      );
    } finally {
      taken.close();
    }
    await expect(listenWhileStarting(loadConfig({ HOST: "999.1.1.1", PORT: "0" }))).rejects.toThrow(/HOST 999\.1\.1\.1 is neither an address/);
  });
});
