import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { root } from "../../scripts/lib/server-process.ts";
import { runCli } from "../support/child-processes.ts";

const CLIS = ["keys", "mcp", "reindex", "export", "import", "migrate"];
const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };

describe("the command-line tools", () => {
  // the tests run these scripts' commands without npm (support/child-processes.ts), which holds only for this form
  it("are each `node <a file of the build>`, as `npm start` is", () => {
    expect(scripts.start).toBe("node dist/server/main.mjs");
    for (const cli of CLIS) expect(scripts[cli]).toBe(`node dist/server/cli-${cli}.mjs`);
  });

  // each a process of its own, 0.3-0.5 s of CPU: every command once, the variants on a command of each kind
  const nowhere = { DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" }; // help must not open it (nor make it)

  it.each(CLIS)("%s: --help prints the usage on stdout and does nothing else", async (cli) => {
    const result = await runCli(cli, ["--help"], nowhere);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(new RegExp(`^usage:[\\s\\S]*npm run ${cli}\\b`));
  });

  it("keys: -h is --help", async () => {
    expect(await runCli("keys", ["-h"], nowhere)).toEqual(await runCli("keys", ["--help"], nowhere));
  });

  it.each([
    ["keys", ["list", "--bogus"], /Unknown option '--bogus'/],
    ["keys", ["list", "--user"], /argument missing/],
    ["migrate", ["now"], /migrate takes no arguments/],
  ] as const)("%s %j: an argument it does not take is a usage error (exit 2, the usage, no stack trace)", async (cli, args, message) => {
    const result = await runCli(cli, [...args], nowhere);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain(`npm run ${cli}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("import: a file that is not there is named in one line (exit 1), before any database is opened", async () => {
    const result = await runCli("import", ["--user", "u", "--file", "/nonexistent/export.ndjson"], nowhere);
    expect(result).toMatchObject({ code: 1, stdout: "", stderr: "ENOENT: no such file or directory, open '/nonexistent/export.ndjson'\n" });
  });

  it("import: a directory is a usage error", async () => {
    const result = await runCli("import", ["--user", "u", "--file", root], nowhere);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${root} is a directory, not an export`);
  });

  it("get --help through npm as an operator types it", async () => {
    const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "keys", "--", "--help"], { cwd: root });
    expect(stdout).toMatch(/^usage:\n {2}npm run keys -- create/);
  });
});
