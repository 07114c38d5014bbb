import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../../scripts/lib/server-process.ts";

const CLIS = ["keys", "mcp", "reindex", "export", "import", "migrate"];
const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };

describe("the command-line tools", () => {
  // the tests run these scripts' commands without npm (support/child-processes.ts), which holds only for this form
  it("are each `node <a file of the build>`, as `npm start` is", () => {
    expect(scripts.start).toBe("node dist/server/main.mjs");
    for (const cli of CLIS) expect(scripts[cli]).toBe(`node dist/server/cli-${cli}.mjs`);
  });
});
