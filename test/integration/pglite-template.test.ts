import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPGlite } from "../../src/db/pglite.ts";
import { databaseUnderTest } from "../support/server.ts";

// a new embedded database is restored from the build's snapshot (src/db/pglite-template.ts)
describe.skipIf(databaseUnderTest() !== "pglite")("a new embedded database", () => {
  const root = mkdtempSync(join(tmpdir(), "pglite-template-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("holds the service's database alone, in a directory and in memory: initdb's two templates are not made", async () => {
    const dataDir = join(root, "new");
    for (const where of [dataDir, "memory://"]) {
      const db = await openPGlite(where);
      try {
        expect(await db.sql.query<{ datname: string }>("SELECT datname FROM pg_database")).toEqual([{ datname: "postgres" }]);
      } finally {
        await db.close();
      }
    }
    // template1 and template0 are base/1 and base/4, the service's database base/5
    expect(["1", "4", "5"].map((oid) => existsSync(join(dataDir, "base", oid)))).toEqual([false, false, true]);
  });
});
