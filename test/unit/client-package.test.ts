import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { root } from "../../scripts/lib/server-process.ts";

describe("the client library as a package export", () => {
  it("imports as plain JavaScript from memory-service/client (no TypeScript loader, no server code)", () => {
    const script = `
      const client = await import("memory-service/client");
      const names = Object.keys(client).sort();
      let code;
      try { new client.MemoryClient({ baseUrl: "http://127.0.0.1:1" }); } catch (error) { code = error.code; }
      console.log(JSON.stringify({ names, code }));`;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(JSON.parse(output)).toEqual({ names: ["MemoryClient", "MemoryServiceError"], code: "INVALID_API_KEY" });
  });
});
