import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, serverProcess, type ServerProcess } from "../support/child-processes.ts";
import { databaseUnavailable, databaseUnderTest, suiteDatabase } from "../support/server.ts";

const api = (url: string, key: string) =>
  fetch(`${url}/api/v1/memory`, { headers: { authorization: `Bearer ${key}` } }).then((res) => res.status);

describe.skipIf(databaseUnavailable())("npm run keys", () => {
  const database = suiteDatabase();

  it("create --json prints exactly one JSON object {id, key, name, userId} on stdout (no server running)", async () => {
    const result = await runCli("keys", ["create", "--user", "a@x", "--name", "t", "--json"], database.env);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(Object.keys(printed).sort()).toEqual(["id", "key", "name", "userId"]);
    expect(printed).toMatchObject({ name: "t", key: expect.stringMatching(/^msk_/) });
  });

  it("list --json shows the user's keys without the secret; an unknown user is an error", async () => {
    const listed = await runCli("keys", ["list", "--user", "a@x", "--json"], database.env);
    expect(listed.code, listed.stderr).toBe(0);
    const keys = JSON.parse(listed.stdout);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ name: "t", prefix: expect.stringMatching(/^msk_/), revokedAt: null });
    expect(keys[0].key).toBeUndefined();

    const unknown = await runCli("keys", ["list", "--user", "nobody@x"], database.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No user");
  });

  it("takes a user's id for --user as well as their handle, and never makes a user of an id", async () => {
    const first = JSON.parse((await runCli("keys", ["create", "--user", "id@x", "--name", "one", "--json"], database.env)).stdout);
    const byId = await runCli("keys", ["create", "--user", first.userId, "--name", "two", "--json"], database.env);
    expect(byId.code, byId.stderr).toBe(0);
    expect(JSON.parse(byId.stdout).userId).toBe(first.userId);
    const listed = await runCli("keys", ["list", "--user", first.userId.toUpperCase(), "--json"], database.env);
    expect(JSON.parse(listed.stdout).map((key: { name: string }) => key.name).sort()).toEqual(["one", "two"]);
    const unknown = await runCli("keys", ["create", "--user", "01a250e6-6fd7-72a6-8827-8888fdfbcbb3", "--name", "x"], database.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No user 01a250e6-6fd7-72a6-8827-8888fdfbcbb3 (by id or handle)");
  });

  it("refuses a key name of more than one line", async () => {
    const result = await runCli("keys", ["create", "--user", "a@x", "--name", "a\nb", "--json"], database.env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toBe("name must be one line, without control characters (line breaks, tabs)");
  });

  it("explains its usage on a bad command (exit 2)", async () => {
    const result = await runCli("keys", ["create", "--user", "a@x"], database.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("usage:");
    expect(result.stdout).toBe("");
  });

  // a script reading --json output got plain text on failure
  it("with --json, says a failure as one JSON line on stderr, with its code", async () => {
    const unknown = await runCli("keys", ["list", "--user", "nobody@x", "--json"], database.env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toEqual({ error: { code: "NOT_FOUND", message: expect.stringContaining("No user") } });
    const usage = await runCli("keys", ["create", "--user", "a@x", "--json"], database.env);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toEqual({ error: { code: "USAGE", message: "create needs --user and --name" } });
    expect([unknown.stdout, usage.stdout]).toEqual(["", ""]);
  });

  // as an operator runs it: `npm start`, the built service (dist/server, made by npm install)
  describe("while the server runs", () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await serverProcess(database.env);
    });
    afterAll(async () => {
      server?.child.kill("SIGTERM");
      await server?.exited;
    });

    it("creates a key the server accepts at once, and a revocation it enforces on the next request", async () => {
      const created = await runCli("keys", ["create", "--user", "b@x", "--name", "live", "--json"], database.env);
      expect(created.code, created.stderr).toBe(0);
      const { id, key } = JSON.parse(created.stdout);
      expect(await api(server.url, key)).toBe(200);

      const revoked = await runCli("keys", ["revoke", id, "--json"], database.env);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toMatchObject({ id, revokedAt: expect.any(String) });
      expect(await api(server.url, key)).toBe(401);
    });

    // on the embedded database the server holds the data directory: migrate asks it, rather than calling it unresponsive
    it("npm run migrate says the database is up to date", async () => {
      const migrated = await runCli("migrate", [], database.env);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout).toMatch(
        databaseUnderTest() === "pglite" ? /is up to date: the server running on it applied the migrations as it started\.$/m : /^PostgreSQL is up to date\.$/m,
      );
    });
  });
});
