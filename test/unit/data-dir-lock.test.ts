import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirBusyError, loadOsLocks, lockDataDir } from "../../src/db/data-dir-lock.ts";
import { processStartTime } from "../../src/db/process-start.ts";

const lockFile = (dir: string) => join(dir, "memory-service.lock");

/** The busy error lockDataDir throws, or undefined when it took the lock (released again). */
function refusal(dir: string, locks = loadOsLocks()): DataDirBusyError | undefined {
  try {
    lockDataDir(dir, "command", locks).release();
    return undefined;
  } catch (error) {
    if (error instanceof DataDirBusyError) return error;
    throw error;
  }
}

describe("the data directory's lock", () => {
  let dir: string;
  let unrelated: ChildProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "data-dir-lock-"));
    unrelated = spawn("sleep", ["600"], { stdio: "ignore" });
    await once(unrelated, "spawn");
  });
  afterAll(() => {
    unrelated?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  // where the project runs: a missing binary would silently leave only the weaker fallback
  it.runIf(["linux", "darwin"].includes(process.platform) && ["x64", "arm64"].includes(process.arch) && !existsSync("/etc/alpine-release"))(
    "is an OS lock here",
    () => expect(loadOsLocks()).not.toBeNull(),
  );

  describe.runIf(loadOsLocks() !== null)("as an OS lock", () => {
    it("admits one holder at a time, in this process as in others, and ignores the pid the file names", () => {
      writeFileSync(lockFile(dir), String(unrelated.pid));
      const lock = lockDataDir(dir, "server");
      expect(refusal(dir)?.message).toBe(`The data directory ${dir} is in use by process ${process.pid}.`);
      expect(refusal(dir)?.holder).toBe("server");
      lock.release();
      expect(refusal(dir)).toBeUndefined();
    });

    // builds before 2026-11-24 wrote their pid alone and took no OS lock: a server started beside one migrated the
    // database under it and lost every memory (outside probe)
    it("refuses while a Node.js process holds it as builds before the OS lock did, by a bare pid", async () => {
      const earlier = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      await once(earlier, "spawn");
      try {
        writeFileSync(lockFile(dir), String(earlier.pid));
        expect(refusal(dir)).toMatchObject({ pid: earlier.pid, holder: undefined });
        earlier.kill();
        await once(earlier, "exit");
        expect(refusal(dir)).toBeUndefined();
      } finally {
        earlier.kill();
      }
    });

    it("names a CLI command that holds it, which a starting server waits for", () => {
      const lock = lockDataDir(dir, "command");
      expect(refusal(dir)).toMatchObject({ holder: "command", message: `The data directory ${dir} is in use by a command (process ${process.pid}).` });
      lock.release();
    });

    it("is free again once its holder is killed, with no clean-up of its own", async () => {
      const holder = spawn(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e",
          `import { lockDataDir } from ${JSON.stringify(new URL("../../src/db/data-dir-lock.ts", import.meta.url).href)};
           lockDataDir(${JSON.stringify(dir)}, "server"); console.log("locked"); setInterval(() => {}, 1000);`],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const exited = once(holder, "exit");
      for await (const line of createInterface({ input: holder.stdout! })) if (line === "locked") break;
      expect(refusal(dir)).toMatchObject({ pid: holder.pid, holder: "server" });
      holder.kill("SIGKILL");
      await exited;
      expect(refusal(dir)).toBeUndefined();
    });
  });

  describe("without an OS lock (no binary for the platform)", () => {
    it.runIf(processStartTime(process.pid) !== undefined)("takes over from a pid now used by another process", () => {
      writeFileSync(lockFile(dir), `${unrelated.pid} 1\n`); // started at another time than `sleep` did
      expect(refusal(dir, null)).toBeUndefined();
    });

    it("refuses while the process the file names runs, and takes over once it is gone", async () => {
      const sleeper = spawn("sleep", ["600"], { stdio: "ignore" });
      await once(sleeper, "spawn");
      writeFileSync(lockFile(dir), `${sleeper.pid} ${processStartTime(sleeper.pid!) ?? "-"}\n`);
      expect(refusal(dir, null)?.pid).toBe(sleeper.pid);
      sleeper.kill();
      await once(sleeper, "exit");
      expect(refusal(dir, null)).toBeUndefined();
    });
  });
});
