import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SETTING_NAMES } from "../../src/config.ts";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("documents every setting in its configuration table", () => {
    const section = readme.slice(readme.indexOf("\n## Configuration\n"), readme.indexOf("\n## Running in production\n"));
    expect(section.length).toBeGreaterThan(100);
    const documented = new Set([...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]));
    expect(SETTING_NAMES.filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !SETTING_NAMES.includes(name!))).toEqual([]);
  });

  it("names every npm script it tells people to run", () => {
    const scripts = Object.keys((JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts);
    const mentioned = new Set([...readme.matchAll(/npm run ([a-z:-]+)/g)].map((match) => match[1]!));
    expect([...mentioned].filter((name) => !scripts.includes(name))).toEqual([]);
  });
});
