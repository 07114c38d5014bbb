import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { openPGlite } from "../../src/db/pglite.ts";
import { databaseUnderTest } from "../support/server.ts";

const walSettings = async (db: Database) =>
  (await db.sql.query<{ name: string; value: string }>(
    `SELECT name, current_setting(name) AS value FROM unnest(ARRAY['wal_segment_size', 'min_wal_size', 'max_wal_size']) AS name
      ORDER BY name`,
  )).map(({ name, value }) => `${name}=${value}`);

// pg_wal holds at least two segments: new embedded databases are made with 1 MB ones, where initdb's default is 16
describe.skipIf(databaseUnderTest() !== "pglite")("the embedded database's WAL", () => {
  const root = mkdtempSync(join(tmpdir(), "pglite-wal-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("is kept in 1 MB segments, at most 8 MB between checkpoints, in a new data directory and in memory", async () => {
    for (const dataDir of [join(root, "new"), "memory://"]) {
      const db = await openPGlite(dataDir);
      try {
        expect(await walSettings(db)).toEqual(["max_wal_size=8MB", "min_wal_size=2MB", "wal_segment_size=1MB"]);
      } finally {
        await db.close();
      }
    }
  });

  it("still opens a data directory made with 16 MB segments, with settings of at least two of them", async () => {
    const dataDir = join(root, "old");
    await (await PGlite.create({ dataDir })).close();
    const db = await openPGlite(dataDir);
    try {
      expect(await walSettings(db)).toEqual(["max_wal_size=32MB", "min_wal_size=32MB", "wal_segment_size=16MB"]);
    } finally {
      await db.close();
    }
  });
});
