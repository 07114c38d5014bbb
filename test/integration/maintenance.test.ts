import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database, Sql } from "../../src/db/database.ts";
import type { DiskSpace } from "../../src/db/disk-space.ts";
import { startMaintenance } from "../../src/db/maintenance.ts";
import type { Logger } from "../../src/logger.ts";
import { openPGlite } from "../../src/db/pglite.ts";
import { newId } from "../../src/domain/ids.ts";
import { insertMemories } from "../../src/domain/memory-rows.ts";
import { createLogger } from "../../src/logger.ts";
import { databaseUnderTest } from "../support/server.ts";

// PGlite has no autovacuum; the service's maintenance stands in for it (PostgreSQL has its own)
describe.skipIf(databaseUnderTest() !== "pglite")("embedded database maintenance", () => {
  let db: Database;
  let userId: string;
  beforeAll(async () => {
    db = await openPGlite("memory://");
    [{ id: userId }] = (await db.sql.query<{ id: string }>(
      "INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'maintenance') RETURNING id",
    )) as [{ id: string }];
  });
  afterAll(() => db?.close());

  it("vacuums tables that only grew, so that counts read the index alone", async () => {
    for (let batch = 0; batch < 12; batch++) {
      await insertMemories(
        db,
        Array.from({ length: 100 }, (_, i) => ({
          id: newId(), userId, content: `note ${batch} ${i} about the garden shed and the red bicycle`,
          data: null, type: "note", tags: [], metadata: {}, threadId: null, isArchived: false, embedding: null, embedder: null,
        })),
        "every",
      );
    }
    const heapFetches = async () => {
      const plan = await db.sql.query<{ "QUERY PLAN": string }>(
        "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM memory_terms WHERE user_id = $1::uuid AND term = 'garden'",
        [userId],
      );
      const line = plan.map((row) => row["QUERY PLAN"]).find((text) => text.includes("Heap Fetches"));
      return line ? Number(/Heap Fetches: (\d+)/.exec(line)![1]) : undefined;
    };
    await db.sql.exec("SET enable_seqscan = off; SET enable_bitmapscan = off");
    expect(await heapFetches()).toBeGreaterThan(0);

    const maintenance = startMaintenance(db.sql, createLogger("silent"), { checkEveryMs: 50 });
    try {
      for (let waited = 0; waited < 10_000 && (await heapFetches()) !== 0; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await maintenance.stop();
    }
    expect(await heapFetches()).toBe(0);
  });

  it("analyses memories on a small sample (statistics target 20), which PGlite's memory keeps no larger", async () => {
    // a histogram has at most target + 1 bounds
    const idBounds = async () =>
      (await db.sql.query<{ bounds: number | null }>(
        `SELECT array_length(histogram_bounds::text::text[], 1) AS bounds FROM pg_stats
          WHERE schemaname = 'public' AND tablename = 'memories' AND attname = 'id'`,
      ))[0]?.bounds ?? null;
    await db.sql.exec("ANALYZE memories");
    expect(await idBounds()).toBe(101);
    await db.sql.exec("DELETE FROM pg_statistic WHERE starelid = 'memories'::regclass");
    expect(await idBounds()).toBeNull();
    // enough changed rows to make memories due again (more than 50 + 10% of its rows)
    await db.sql.exec("UPDATE memories SET tags = ARRAY['due']");

    const maintenance = startMaintenance(db.sql, createLogger("silent"), { checkEveryMs: 50 });
    try {
      for (let waited = 0; waited < 10_000 && (await idBounds()) === null; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await maintenance.stop();
    }
    expect(await idBounds()).toBe(21);
  });

  it("checkpoints once half of max_wal_size was written since the last checkpoint, so that old segments can go", async () => {
    const sinceCheckpoint = async () =>
      (await db.sql.query<{ bytes: number }>(
        "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()",
      ))[0]!.bytes;
    const [{ max }] = (await db.sql.query<{ max: number }>(
      "SELECT pg_size_bytes(current_setting('max_wal_size'))::float8 AS max",
    )) as [{ max: number }];
    await db.sql.exec("CHECKPOINT");
    while ((await sinceCheckpoint()) <= max / 2) {
      await insertMemories(
        db,
        Array.from({ length: 500 }, (_, i) => ({
          id: newId(), userId, content: `a longer note ${i} `.repeat(20),
          data: null, type: "note", tags: [], metadata: {}, threadId: null, isArchived: false, embedding: null, embedder: null,
        })),
        "every",
      );
    }
    const written = await sinceCheckpoint();

    const maintenance = startMaintenance(db.sql, createLogger("silent"), { checkEveryMs: 50 });
    try {
      for (let waited = 0; waited < 10_000 && (await sinceCheckpoint()) >= written; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await maintenance.stop();
    }
    expect(await sinceCheckpoint()).toBeLessThan(written);
  });

  // a checkpoint that could not write its files on a full disk stopped single-user PostgreSQL for good: every
  // request hung until a restart, even once space was freed (outside probe)
  it("neither checkpoints nor vacuums while the data directory's disk is almost full, and says so once", async () => {
    const statements: string[] = [];
    const sql: Sql = {
      ...db.sql,
      query: <R>(text: string, params?: unknown[]) => (statements.push(text), db.sql.query<R>(text, params)),
      exec: (text: string) => (statements.push(text), db.sql.exec(text)),
    };
    const warn = vi.fn();
    const logger = { ...createLogger("silent"), warn } as unknown as Logger;
    const disk = { low: () => true, free: () => 10 * 1024 * 1024 } as unknown as DiskSpace;
    const maintenance = startMaintenance(sql, logger, { checkEveryMs: 20, disk });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await maintenance.stop();
    expect(statements).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
