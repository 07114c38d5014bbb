import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, readMigrations, type MigrationConnection } from "../../src/db/migrate.ts";
import { openPostgres } from "../../src/db/postgres.ts";
import { PrismaClient } from "../../src/generated/prisma/client.ts";
import { getDatamodel } from "../../src/generated/pothos-prisma-types.ts";
import { diffDatabaseToSchema, isEmptyMigration, migrationHistory } from "../../scripts/schema-engine.ts";
import { databaseUnavailable, databaseUnderTest, freshPostgresDatabase } from "../support/server.ts";

/** Every table column, index, constraint and enum of the public schema, as comparable text. */
async function schemaFingerprint(sql: MigrationConnection): Promise<string[]> {
  const rows = await sql.query<{ item: string }>(`
    SELECT format('column %s.%s %s %s nullable=%s default=%s', table_name, column_name, data_type, udt_name,
                  is_nullable, column_default) AS item
      FROM information_schema.columns WHERE table_schema = 'public'
    UNION ALL
    SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL
    SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype <> 'n' -- PostgreSQL 18 lists NOT NULL here too
    UNION ALL
    SELECT format('enum %s %s %s', t.typname, e.enumsortorder, e.enumlabel)
      FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid`);
  return rows.map((row) => row.item).sort();
}

describe.skipIf(databaseUnavailable())("migrations", () => {
  let adapter: SqlMigrationAwareDriverAdapterFactory;
  let prisma: PrismaClient;
  let connection: MigrationConnection;
  let close: () => Promise<void>;

  beforeAll(async () => {
    if (databaseUnderTest() === "pglite") {
      const pglite = await PGlite.create({ dataDir: "memory://", extensions: { vector } });
      connection = {
        query: async <R>(text: string, params?: unknown[]) => (await pglite.query<R>(text, params)).rows,
        exec: async (script) => void (await pglite.exec(script)),
      };
      await migrate(connection);
      adapter = new PrismaPGlite(pglite);
      prisma = new PrismaClient({ adapter });
      close = () => pglite.close();
    } else {
      const database = await freshPostgresDatabase();
      const db = await openPostgres(database.url, { size: 2, timeoutMs: 30_000 }); // opening migrates
      connection = db.sql;
      adapter = new PrismaPg({ connectionString: database.url });
      prisma = db.prisma;
      close = async () => {
        await db.close();
        await database.drop();
      };
    }
  });
  afterAll(() => close?.());

  it.runIf(databaseUnderTest() === "pglite")(
    "leave the database exactly as prisma/schema.prisma describes it (Prisma's schema engine finds no diff)",
    async () => {
      const diff = await diffDatabaseToSchema(adapter);
      expect(isEmptyMigration(diff), diff).toBe(true);
    },
  );

  // Prisma's engine cannot describe a PostgreSQL database through adapter-pg 7.10 (it fails on the catalogs'
  // "char" columns), so PostgreSQL is held to the PGlite schema that the engine certifies above.
  it.runIf(databaseUnderTest() === "postgres")(
    "leave PostgreSQL with exactly the tables, columns, indexes and constraints the certified PGlite schema has",
    async () => {
      const pglite = await PGlite.create({ dataDir: "memory://", extensions: { vector } });
      const reference: MigrationConnection = {
        query: async <R>(text: string, params?: unknown[]) => (await pglite.query<R>(text, params)).rows,
        exec: async (script) => void (await pglite.exec(script)),
      };
      await migrate(reference);
      expect(isEmptyMigration(await diffDatabaseToSchema(new PrismaPGlite(pglite)))).toBe(true);
      const expected = await schemaFingerprint(reference);
      await pglite.close();
      expect(expected.length).toBeGreaterThan(50);
      expect(await schemaFingerprint(connection)).toEqual(expected);
    },
  );

  it("record the history so that `prisma migrate status` finds nothing to do", async () => {
    const status = await migrationHistory(adapter);
    expect(status).toEqual({ hasMigrationsTable: true, history: null, failedMigrationNames: [], editedMigrationNames: [] });
  });

  it("make every model and column reachable through the generated client", async () => {
    const models = Object.entries(getDatamodel().datamodel.models);
    expect(models.length).toBeGreaterThanOrEqual(6);
    for (const [model, { fields }] of models) {
      const select = Object.fromEntries(fields.filter((f) => f.kind !== "object").map((f) => [f.name, true]));
      const delegate = (prisma as unknown as Record<string, { findFirst(args: object): Promise<unknown> }>)[
        model[0]!.toLowerCase() + model.slice(1)
      ]!;
      // a query naming every column runs (an unknown column would fail it) and finds the table empty
      await expect(delegate.findFirst({ select }), model).resolves.toBeNull();
    }
  });

  it("apply nothing the second time", async () => {
    expect(await migrate(connection)).toEqual([]);
    const rows = await connection.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations"`);
    expect(rows.map((r) => r.migration_name).sort()).toEqual(readMigrations().map((m) => m.name));
  });

  it("roll a failing migration back whole, leaving no trace in the history", async () => {
    const broken = { name: "99999999999999_broken", sql: "CREATE TABLE half_done (id int); SELECT no_such_function();", checksum: "x" };
    await expect(migrate(connection, undefined, [...readMigrations(), broken])).rejects.toThrow(/99999999999999_broken failed/);
    const tables = await connection.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'`);
    expect(tables).toEqual([]);
    expect(await migrate(connection)).toEqual([]);
  });
});
