import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/server-process.ts";
import { runCli } from "../support/child-processes.ts";
import { databaseUnderTest } from "../support/server.ts";

// A dependency the service cannot reach at start, or a DATA_DIR it cannot use: `npm start` (and the CLI) say so in
// one line naming the setting, where they printed the driver's error with its stack.
// Run once: nothing here depends on the database the suite tests.
describe.runIf(databaseUnderTest() === "pglite")("a dependency that cannot be used at start", () => {
  const scratch = mkdtempSync(join(tmpdir(), "startup-failures-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const oneLine = (stderr: string) => {
    expect(stderr, "no stack trace").not.toMatch(/\n\s+at /);
    return stderr.trim();
  };

  it.each<[string, () => Promise<Record<string, string>>, RegExp]>([
    [
      "DATABASE_URL refused, its password not shown",
      async () => ({ DATABASE_URL: `postgresql://ada:s3cret@127.0.0.1:${await freePort()}/memory` }),
      /^Cannot connect to the database at DATABASE_URL \(postgresql:\/\/ada:\*\*\*@127\.0\.0\.1:\d+\/memory\): connect ECONNREFUSED/,
    ],
    [
      "DATA_DIR a file",
      async () => {
        writeFileSync(join(scratch, "file"), "");
        return { DATA_DIR: join(scratch, "file") };
      },
      /^DATA_DIR \S+\/file is a file, not a directory$/,
    ],
    [
      "DATA_DIR under a file",
      async () => ({ DATA_DIR: join(scratch, "file", "data") }),
      /^DATA_DIR \S+\/file\/data cannot be used: ENOTDIR/,
    ],
  ])("%s: the server exits 1 with one line naming it", async (_, settings, message) => {
    const { code, stderr } = await runCli("start", [], { EMBEDDER: "hash", PORT: "0", HOST: "127.0.0.1", ...(await settings()) });
    expect(code).toBe(1);
    expect(oneLine(stderr)).toMatch(message);
    expect(stderr).not.toContain("s3cret");
  });

  it("OPENAI_BASE_URL refused: the server exits 1 with one line naming it", async () => {
    const env = { DATA_DIR: join(scratch, "openai"), OPENAI_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`, PORT: "0", HOST: "127.0.0.1" };
    const { code, stderr } = await runCli("start", [], env);
    expect(code).toBe(1);
    expect(oneLine(stderr)).toMatch(/^The embedder could not be used \(OPENAI_BASE_URL, EMBEDDING_MODEL\): .*ECONNREFUSED/);
  });

  it("the keys CLI, DATABASE_URL refused: exit 1, one line", async () => {
    const env = { DATABASE_URL: `postgresql://ada@127.0.0.1:${await freePort()}/memory` };
    const { code, stderr } = await runCli("keys", ["list", "--user", "ada@x"], env);
    expect(code).toBe(1);
    expect(oneLine(stderr)).toMatch(/^Cannot connect to the database at DATABASE_URL \(postgresql:\/\/ada@127\.0\.0\.1:\d+\/memory\): connect ECONNREFUSED/);
  });
});
