import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, scriptCommand, serverProcess } from "../support/child-processes.ts";
import { databaseUnavailable, persistentDatabase, suiteDatabase } from "../support/server.ts";

const parse = (text: string) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

// The operator's move of one user's records to another installation: export from a running server, import
// into a database no server holds, and again (nothing changes) into the server running on it
describe.skipIf(databaseUnavailable())("npm run export and npm run import", () => {
  const source = suiteDatabase();
  const dir = mkdtempSync(join(tmpdir(), "memory-export-"));
  const file = join(dir, "export.ndjson");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("moves a user's threads and memories, ids and times kept, and a second import changes nothing", async () => {
    const created = await runCli("keys", ["create", "--user", "a@x", "--name", "t", "--json"], source.env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const server = await serverProcess({ ...source.env, EMBEDDER: "hash" });
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }).then((res) => res.json() as Promise<{ id: string }>);
      const thread = await post("/api/v1/threads", { title: "Trip" });
      await post("/api/v1/memory", { content: "Flight on May 3", thread_id: thread.id });
      await post("/api/v1/memory", { content: { dish: "ramen" }, tags: ["food"] });
      const exported = await runCli("export", ["--user", "a@x", "--out", file, "--embeddings"], { ...source.env, EMBEDDER: "hash" });
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toMatch(/Exported 1 threads and 2 memories of a@x/);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    const lines = parse(readFileSync(file, "utf8"));
    expect(lines.map((line) => line.kind)).toEqual(["thread", "memory", "memory"]);

    const target = await persistentDatabase();
    try {
      const env = { ...target.env, EMBEDDER: "hash" };
      expect((await runCli("keys", ["create", "--user", "b@x", "--name", "t"], env)).code).toBe(0);
      const unknown = await runCli("import", ["--user", "nobody@x", "--file", file], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("No user nobody@x");
      const imported = await runCli("import", ["--user", "b@x", "--file", file], env);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(/Imported into b@x: 3 created, 0 updated, 0 skipped, 0 failed/);
      const back = await runCli("export", ["--user", "b@x", "--embeddings"], env);
      expect(back.code, back.stderr).toBe(0);
      expect(parse(back.stdout)).toEqual(lines);
      // a file that cannot be made is named in one line, not an unhandled error's stack
      const nowhere = await runCli("export", ["--user", "b@x", "--out", "/nonexistent/dir/b.ndjson"], env);
      expect(nowhere.code).toBe(1);
      expect(nowhere.stderr).toMatch(/^ENOENT: no such file or directory, open '\/nonexistent\/dir\/b\.ndjson'$/m);
      expect(nowhere.stderr).not.toMatch(/\n\s+at /);

      const running = await serverProcess(env);
      try {
        const again = await runCli("import", ["--user", "b@x", "--file", file], env);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toMatch(/0 created, 0 updated, 3 skipped, 0 failed/);
      } finally {
        running.child.kill("SIGTERM");
        await running.exited;
      }
    } finally {
      await target.drop();
    }
    // eight CLI runs and three servers, each starting Node with tsx
  }, 240_000);

  it("imports from stdin into a database no server holds, every line of it", async () => {
    const target = await persistentDatabase();
    try {
      const env = { ...target.env, EMBEDDER: "hash" };
      expect((await runCli("keys", ["create", "--user", "c@x", "--name", "t"], env)).code).toBe(0);
      // more than a pipe's buffer: a read begun for a server that is not there took the first part with it
      const input = Array.from({ length: 1300 }, (_, i) => `${JSON.stringify({ content: `stdin line ${i}` })}\n`).join("");
      const imported = await runCli("import", ["--user", "c@x"], env, input);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(/Imported into c@x: 1300 created, 0 updated, 0 skipped, 0 failed/);
      const back = await runCli("export", ["--user", "c@x"], env);
      expect(parse(back.stdout).map((line) => line.content).sort()).toEqual(Array.from({ length: 1300 }, (_, i) => `stdin line ${i}`).sort());
      // piped into a reader that stops early (more than a pipe's buffer is left): it printed EPIPE's stack, exit 1
      const { command, args } = scriptCommand("export", ["--user", "c@x"]);
      const quoted = [command, ...args].map((word) => `'${word}'`).join(" ");
      const piped = spawnSync("bash", ["-o", "pipefail", "-c", `${quoted} | head -c 100 > /dev/null`], { env: { ...process.env, ...env }, encoding: "utf8" });
      expect(piped.status, piped.stderr).toBe(0);
      expect(piped.stderr).not.toMatch(/EPIPE|\n\s+at /); // the log's own lines aside (a warning on PostgreSQL)
    } finally {
      await target.drop();
    }
  }, 120_000);
});
