import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  // the repository's package is the service (private, built whole at install): an app could not install the client
  // (outside probe)
  it("packs as a package of its own, compiled as it packs, which an app installs offline and imports", () => {
    const work = mkdtempSync(join(tmpdir(), "client-package-"));
    try {
      const packed = JSON.parse(
        execFileSync("npm", ["pack", "./src/client", "--pack-destination", work, "--json", "--loglevel=error"], { cwd: root, encoding: "utf8" }),
      ) as { filename: string; files: { path: string }[] }[];
      const files = packed[0]!.files.map((file) => file.path);
      expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "dist/index.js", "dist/index.d.ts"]));
      expect(files.filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts")), "no sources").toEqual([]);
      const app = join(work, "app");
      execFileSync("mkdir", [app]);
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
      execFileSync("npm", ["install", join(work, packed[0]!.filename), "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: app });
      const script = `const client = await import("memory-service-client"); console.log(JSON.stringify(Object.keys(client).sort()));`;
      const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: app, encoding: "utf8" });
      expect(JSON.parse(output)).toEqual(["MemoryClient", "MemoryServiceError"]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});
