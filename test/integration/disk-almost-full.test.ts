import { describe, expect, it } from "vitest";
import { PGliteThread, threadSql } from "../../src/db/pglite-client.ts";
import { asAppError } from "../../src/errors.ts";
import { databaseUnderTest } from "../support/server.ts";

// On a full disk a WAL segment that could not be written stopped the embedded database for good: every request hung
// until a restart, even once space was freed (outside probe). While the disk is almost full, writes are refused first.
describe.skipIf(databaseUnderTest() !== "pglite")("the embedded database while its disk is almost full", () => {
  it("refuses the statements that write (503, saying why), serves reads, and writes again once space is freed", async () => {
    const thread = await PGliteThread.open({ dataDir: "memory://" });
    try {
      const sql = threadSql(thread);
      await sql.exec("CREATE TABLE notes (id int PRIMARY KEY, body text)");
      await sql.query("INSERT INTO notes VALUES (1, 'kept')");
      let low = true;
      thread.refuseWrites = () => low;
      const refused = await sql.query("INSERT INTO notes VALUES (2, 'refused')").catch((error: unknown) => error);
      expect(asAppError(refused)).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, message: expect.stringMatching(/disk is full/) });
      await expect(sql.query("WITH gone AS (DELETE FROM notes RETURNING id) SELECT * FROM gone")).rejects.toMatchObject({ code: "53100" });
      await expect(sql.transaction((tx) => tx.query("UPDATE notes SET body = 'x'"))).rejects.toMatchObject({ code: "53100" });
      expect(await sql.query("SELECT id, body FROM notes")).toEqual([{ id: 1, body: "kept" }]);
      low = false;
      await sql.query("INSERT INTO notes VALUES (2, 'written')");
      expect(await sql.query("SELECT count(*)::int AS n FROM notes")).toEqual([{ n: 2 }]);
    } finally {
      await thread.close();
    }
  });
});
