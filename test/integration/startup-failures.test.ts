import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/server-process.ts";
import { runCli } from "../support/child-processes.ts";
import { warnUntested } from "../support/loud.ts";
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

/** A 1 MB tmpfs for a full disk, or undefined (said loudly) where this process may not mount one. */
function smallDisk(): string | undefined {
  const mountPoint = mkdtempSync(join(tmpdir(), "full-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint], { stdio: "pipe" });
    return mountPoint;
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    warnUntested([`A full disk cannot be made here (mounting a tmpfs: ${(error as Error).message.split("\n")[0]}).`, "The start on a full disk is NOT tested."]);
    return undefined;
  }
}

// an outside probe started the server on a full disk: the file system's error with its stack, and a data directory
// left holding part of a database
describe.runIf(databaseUnderTest() === "pglite")("a start on a full disk", () => {
  const disk = smallDisk();
  afterAll(() => {
    if (!disk) return;
    execFileSync("umount", [disk]);
    rmSync(disk, { recursive: true, force: true });
  });
  const start = (dataDir: string) => runCli("start", [], { EMBEDDER: "hash", PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir });
  const noSpace = (dataDir: string) => new RegExp(`^DATA_DIR ${dataDir} cannot be used: no space left on its device \\(ENOSPC\\); free some space and start again$`);

  it.runIf(disk)("too small for a new database: exits 1 with one line, and leaves no part of one", async () => {
    const dataDir = join(disk!, "new");
    const { code, stderr } = await start(dataDir);
    expect(code).toBe(1);
    expect(stderr.trim(), "one line, no stack trace").toMatch(noSpace(dataDir));
    expect(existsSync(join(dataDir, "PG_VERSION")), "no marker of a database").toBe(false);
    expect(readdirSync(dataDir), "nothing of the copy").toEqual(["memory-service.lock"]);
  });

  it.runIf(disk)("with no room for its lock file's record: exits 1 with one line", async () => {
    const dataDir = join(disk!, "full");
    mkdirSync(dataDir);
    // every block taken: the lock file is created (an inode), its record cannot be written
    try {
      for (let i = 0; ; i++) writeFileSync(join(disk!, `filler-${i}`), Buffer.alloc(64 * 1024));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    }
    const { code, stderr } = await start(dataDir);
    expect(code).toBe(1);
    expect(stderr.trim(), "one line, no stack trace").toMatch(noSpace(dataDir));
  });
});
