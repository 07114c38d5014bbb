import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqlDriverAdapter, SqlQuery } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { createPGlite, preparedClient, sqlOf } from "../../src/db/pglite-engine.ts";
import { PreparedStatements } from "../../src/db/pglite-prepared.ts";
import { databaseUnderTest } from "../support/server.ts";

// raw SQL on the embedded database runs through statements prepared once per text (src/db/pglite-prepared.ts)
describe.skipIf(databaseUnderTest() !== "pglite")("prepared statements on the embedded database", () => {
  let pglite: PGlite;
  beforeAll(async () => {
    pglite = await createPGlite({ dataDir: "memory://" });
  });
  afterAll(() => pglite.close());

  const prepared = async () => (await pglite.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements")).rows[0]!.n;

  it("answers every type as PGlite's own query does", async () => {
    const sql = sqlOf(pglite);
    const text = `SELECT 1::int2 a, 3::int8 c, 4.5::float4 d, 6.25::numeric f, true g, 'x'::text h, '2026-01-02T03:04:05.678Z'::timestamptz j,
       '6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a01'::uuid u, ARRAY['a', NULL] t, '{"a":[1]}'::jsonb jb, '\\x01ff'::bytea b, NULL::uuid n,
       $1::uuid[] p1, $2::timestamptz[] p2, $3::text[] p3, $4::jsonb p4, $5::bigint p5, $6::bytea p6, $7::int p7`;
    const params = [["6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a01"], ["2026-01-02T03:04:05.678Z"], ["a,b", 'c"d', null], { x: [1, "2"] }, "123", new Uint8Array([0, 7, 255]), null];
    const expected = (await pglite.query(text, params)).rows;
    // the second run, from the statement prepared by the first, answers alike
    expect(await sql.query(text, params)).toEqual(expected);
    expect(await sql.query(text, params)).toEqual(expected);
    expect(expected[0]).toMatchObject({ b: new Uint8Array([1, 255]), p6: new Uint8Array([0, 7, 255]), p7: null, t: ["a", null] });
  });

  it("goes on after an error, in a transaction or not, and prepares a statement anew once a table it reads changed", async () => {
    const sql = sqlOf(pglite);
    await sql.exec("CREATE TABLE t (a int PRIMARY KEY)");
    await expect(sql.query("SELEC 1")).rejects.toMatchObject({ code: "42601" });
    await sql.query("INSERT INTO t VALUES ($1)", [1]);
    await expect(sql.query("INSERT INTO t VALUES ($1)", [1])).rejects.toMatchObject({ code: "23505" });
    await expect(
      sql.transaction(async (tx) => {
        await tx.query("INSERT INTO t VALUES ($1)", [2]);
        await tx.query("INSERT INTO t VALUES ($1)", [2]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await sql.query("SELECT * FROM t")).toEqual([{ a: 1 }]);
    await sql.exec("ALTER TABLE t ADD COLUMN b text DEFAULT 'z'");
    // PostgreSQL refuses a prepared statement whose columns changed ("cached plan must not change result type")
    expect(await sql.query("SELECT * FROM t")).toEqual([{ a: 1, b: "z" }]);
  });

  it("keeps at most its limit, closing the least recently used", async () => {
    const statements = new PreparedStatements(pglite, 2);
    const before = await prepared();
    await pglite.runExclusive(async () => {
      await statements.results("SELECT 1 AS x");
      await statements.results("SELECT 2 AS x");
      await statements.results("SELECT 1 AS x");
      await statements.results("SELECT 3 AS x");
    });
    expect(await prepared()).toBe(before + 2);
    const names = (await pglite.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements")).rows.map((row) => row.statement);
    expect(names).toEqual(expect.arrayContaining(["SELECT 1 AS x", "SELECT 3 AS x"]));
    expect(names).not.toContain("SELECT 2 AS x");
  });

  describe("under Prisma's driver adapter", () => {
    let bare: SqlDriverAdapter;
    let throughPrepared: SqlDriverAdapter;
    let statements: PreparedStatements;
    beforeAll(async () => {
      statements = new PreparedStatements(pglite);
      bare = await new PrismaPGlite(pglite).connect();
      throughPrepared = await new PrismaPGlite(preparedClient(pglite, statements)).connect();
      await pglite.exec("CREATE TABLE p (id uuid PRIMARY KEY, at timestamptz NOT NULL, n bigint, tags text[], meta jsonb, bytes bytea)");
    });

    const query = (sql: string, args: unknown[], argTypes: SqlQuery["argTypes"]): SqlQuery => ({ sql, args, argTypes });
    const insert = (id: string) =>
      query(
        "INSERT INTO p (id, at, n, tags, meta, bytes) VALUES ($1, $2, $3, $4, $5, $6)",
        [id, "2026-01-02T03:04:05.678Z", 12n, ["a", 'b"c'], '{"k":[1]}', new Uint8Array([1, 2])],
        [
          { scalarType: "uuid", arity: "scalar" },
          { scalarType: "datetime", arity: "scalar", dbType: "TIMESTAMPTZ" },
          { scalarType: "bigint", arity: "scalar" },
          { scalarType: "string", arity: "list" },
          { scalarType: "json", arity: "scalar" },
          { scalarType: "bytes", arity: "scalar" },
        ],
      );
    const select = query("SELECT id, at, n, tags, meta, bytes, 1.5::numeric AS x FROM p WHERE id = ANY($1) ORDER BY id", [["6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a01", "6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a02"]], [
      { scalarType: "uuid", arity: "list" },
    ]);

    it("answers queries, rows affected and errors as over PGlite's own query, from statements it prepared", async () => {
      const before = await prepared();
      expect(await throughPrepared.executeRaw(insert("6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a01"))).toBe(1);
      expect(await bare.executeRaw(insert("6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a02"))).toBe(1);
      const expected = await bare.queryRaw(select);
      expect(expected.rows).toHaveLength(2);
      expect(await throughPrepared.queryRaw(select)).toEqual(expected);
      expect(await throughPrepared.queryRaw(select)).toEqual(expected);
      expect(await prepared()).toBe(before + 2);
      // PostgreSQL's unique violation is Prisma's, as the adapter reports it
      const refused = (adapter: SqlDriverAdapter) => adapter.executeRaw(insert("6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a01")).catch((error: unknown) => error);
      const [theirs, ours] = [await refused(bare), await refused(throughPrepared)];
      expect(ours).toMatchObject({ name: "DriverAdapterError", cause: { kind: "UniqueConstraintViolation" } });
      expect((ours as { cause: unknown }).cause).toEqual((theirs as { cause: unknown }).cause);
    });

    it("runs a transaction's statements in it, committed or rolled back", async () => {
      const count = async () => Number((await throughPrepared.queryRaw(query("SELECT count(*) AS n FROM p", [], []))).rows[0]![0]);
      const before = await count();
      const rolledBack = await throughPrepared.startTransaction();
      await rolledBack.executeRaw(insert("6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a03"));
      expect(Number((await rolledBack.queryRaw(query("SELECT count(*) AS n FROM p", [], []))).rows[0]![0])).toBe(before + 1);
      await rolledBack.rollback();
      expect(await count()).toBe(before);
      const committed = await throughPrepared.startTransaction();
      await committed.executeRaw(insert("6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a03"));
      await committed.commit();
      expect(await count()).toBe(before + 1);
    });
  });
});
