import type { Worker } from "node:worker_threads";
import { Prisma } from "../../src/generated/prisma/client.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { openPGlite } from "../../src/db/pglite.ts";
import { PGliteThread, threadSql } from "../../src/db/pglite-client.ts";
import type { Logger } from "../../src/logger.ts";
import { databaseUnderTest } from "../support/server.ts";

// The embedded database runs in a thread of its own (src/db/pglite-thread.ts): what crosses must behave as PGlite
// did on the event loop's thread, errors and transactions included.
describe.skipIf(databaseUnderTest() !== "pglite")("the embedded database's thread", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPGlite("memory://");
  });
  afterAll(() => db?.close());

  const handles = async (prefix: string) =>
    (await db.sql.query<{ handle: string }>("SELECT handle FROM users WHERE handle LIKE $1 ORDER BY handle", [`${prefix}%`])).map(
      (row) => row.handle,
    );

  it("gives PostgreSQL's error with its code and detail to raw SQL, and Prisma's known error to Prisma", async () => {
    await db.sql.query("INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'thread-unique')");
    const raw = await db.sql.query("INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'thread-unique')").catch((e: unknown) => e);
    expect(raw).toBeInstanceOf(Error);
    expect(raw).toMatchObject({ name: "DatabaseError", code: "23505", constraint: "users_handle_key" });
    expect((raw as { detail: string }).detail).toContain("thread-unique");

    const viaPrisma = await db.prisma.user.create({ data: { handle: "thread-unique" } }).catch((e: unknown) => e);
    expect(viaPrisma).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect((viaPrisma as Prisma.PrismaClientKnownRequestError).code).toBe("P2002");
  });

  it("commits a raw-SQL transaction that resolves and rolls back one that throws, with the work's own error", async () => {
    await db.sql.transaction(async (sql) => {
      await sql.query("INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'tx-kept')");
    });
    const failure = new Error("the work failed");
    await expect(
      db.sql.transaction(async (sql) => {
        await sql.query("INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'tx-dropped')");
        throw failure;
      }),
    ).rejects.toBe(failure);
    // a statement that fails inside: the transaction is rolled back and the statement's error is the one reported
    await expect(
      db.sql.transaction(async (sql) => {
        await sql.query("INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'tx-dropped-too')");
        await sql.query("INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'tx-kept')");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await handles("tx-")).toEqual(["tx-kept"]);
    await expect(db.sql.transaction((sql) => sql.transaction(() => Promise.resolve()))).rejects.toThrow(/do not nest/);
  });

  it("holds other statements back while a transaction is open, as one connection does", async () => {
    const order: string[] = [];
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const transaction = db.sql.transaction(async (sql) => {
      await sql.query("INSERT INTO users (id, handle) VALUES (gen_random_uuid(), 'order-tx')");
      inside();
      await new Promise((resolve) => setTimeout(resolve, 100));
      order.push("transaction");
    });
    await entered;
    const outside = db.sql.query("SELECT count(*) FROM users WHERE handle = 'order-tx'").then((rows) => {
      order.push("outside");
      return rows;
    });
    await transaction;
    expect(await outside).toEqual([{ count: 1 }]);
    expect(order).toEqual(["transaction", "outside"]);
  });

  it("runs Prisma's interactive transactions in the thread: committed, or rolled back when they throw", async () => {
    await db.prisma.$transaction(async (tx) => {
      await tx.user.create({ data: { handle: "prisma-kept" } });
    });
    await expect(
      db.prisma.$transaction(async (tx) => {
        await tx.user.create({ data: { handle: "prisma-dropped" } });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await handles("prisma-")).toEqual(["prisma-kept"]);
  });

  it("carries bytes both ways unchanged", async () => {
    const bytes = new Uint8Array([0, 1, 127, 128, 255]);
    const [row] = await db.sql.query<{ b: Uint8Array }>("SELECT $1::bytea AS b", [bytes]);
    expect(row?.b).toEqual(bytes);
  });

  it("answers a call it cannot serve with an error and goes on serving", async () => {
    const thread = await PGliteThread.open({ dataDir: "memory://" });
    try {
      await expect(threadSql(thread, 12345).query("SELECT 1")).rejects.toThrow(/no open transaction 12345/);
      expect(await threadSql(thread).query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await thread.close();
    }
  });

  it("closes with statements still arriving: each has an answer, and the close resolves", async () => {
    const thread = await PGliteThread.open({ dataDir: "memory://" });
    const sql = threadSql(thread);
    const before = Array.from({ length: 20 }, () => sql.query("SELECT pg_sleep(0.001)").then(() => "done", (e: Error) => e.message));
    const closing = thread.close();
    const after = Array.from({ length: 20 }, () => sql.query("SELECT 1").then(() => "done", (e: Error) => e.message));
    await closing;
    expect(await Promise.all(before)).toEqual(Array(20).fill("done"));
    for (const outcome of await Promise.all(after)) expect(outcome).toMatch(/done|embedded database is (closed|not open)/);
  });

  it("when its thread dies, fails every call from then on with the reason and logs it once", async () => {
    const errors: string[] = [];
    const logger = { error: (_: unknown, message: string) => errors.push(message) } as unknown as Logger;
    const thread = await PGliteThread.open({ dataDir: "memory://" }, logger);
    await (thread as unknown as { worker: Worker }).worker.terminate();
    await expect(threadSql(thread).query("SELECT 1")).rejects.toThrow(/embedded database's thread stopped/);
    await expect(threadSql(thread).query("SELECT 1")).rejects.toThrow(/embedded database's thread stopped/);
    expect(errors).toEqual(["the embedded database's thread failed: the database is unavailable"]);
  });

  it("fails calls made after it is closed, with a message that says so", async () => {
    const closing = await openPGlite("memory://");
    await closing.close();
    await expect(closing.sql.query("SELECT 1")).rejects.toThrow(/embedded database is closed/);
  });
});
