import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
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
  ])("%s=%s is refused with the range it must be in", (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
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
