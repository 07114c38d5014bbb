import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SETTING_NAMES } from "../../src/config.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** The README and the documents it links to: each is held to the same rules. */
const DOCUMENTS = ["README.md", "docs/API.md", "docs/ARCHITECTURE.md", "src/client/README.md", "bench/README.md"];
const read = (path: string) => readFileSync(resolve(root, path), "utf8");
const readme = read("README.md");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
const anchorsOf = (text: string) => new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));

describe("README", () => {
  it("stays an overview: under 300 lines", () => {
    expect(readme.split("\n").length).toBeLessThan(300);
  });

  it("documents every setting in its configuration table", () => {
    const section = readme.slice(readme.indexOf("\n## Configuration\n"), readme.indexOf("\n## Running in production\n"));
    expect(section.length).toBeGreaterThan(100);
    const documented = new Set([...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]));
    expect(SETTING_NAMES.filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !SETTING_NAMES.includes(name!))).toEqual([]);
  });

  it.each(DOCUMENTS)("%s names only npm scripts that exist", (path) => {
    const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);
    const mentioned = new Set([...read(path).matchAll(/npm run ([a-z:-]+)/g)].map((match) => match[1]!));
    expect([...mentioned].filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it.each(DOCUMENTS)("%s links only to files and headings that exist", (path) => {
    const broken: string[] = [];
    for (const [, target] of read(path).matchAll(/\]\(((?!https?:|mailto:)[^)\s]+)\)/g)) {
      const [file, anchor] = target!.split("#") as [string, string | undefined];
      const linked = file ? resolve(root, dirname(path), file) : resolve(root, path);
      if (!existsSync(linked)) broken.push(target!);
      else if (anchor && linked.endsWith(".md") && !anchorsOf(readFileSync(linked, "utf8")).has(anchor)) broken.push(target!);
    }
    expect(broken).toEqual([]);
  });
});
