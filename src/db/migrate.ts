import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logger.ts";
import { projectPath } from "../project-root.ts";

export const migrationsDir = projectPath("prisma", "migrations");

/** One connection (or PGlite, which is one connection): the advisory lock must be held by the session that migrates. */
export interface MigrationConnection {
  query<R>(text: string, params?: unknown[]): Promise<R[]>;
  exec(script: string): Promise<void>;
}

export interface Migration {
  name: string;
  sql: string;
  /** Prisma's checksum: SHA-256 of migration.sql, hex. */
  checksum: string;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | string | null;
}

// Same key as Prisma's schema engine, so that `prisma migrate deploy` and this runner never run at once.
const ADVISORY_LOCK_KEY = 72707369;

// The bookkeeping table exactly as Prisma creates it, so `prisma migrate status` reads our history as its own.
const CREATE_HISTORY_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export class MigrationError extends Error {
  override name = "MigrationError";
}

export function readMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/**
 * Applies the pending migrations of prisma/migrations in order, each in its own transaction, and records them
 * in `_prisma_migrations` the way Prisma does. Returns the names it applied.
 */
export async function migrate(
  conn: MigrationConnection,
  logger?: Logger,
  migrations: Migration[] = readMigrations(),
): Promise<string[]> {
  await conn.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_KEY]);
  try {
    await conn.exec(CREATE_HISTORY_TABLE);
    const rows = await conn.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const failed = rows.find((row) => row.finished_at === null);
    if (failed) {
      throw new MigrationError(
        `Migration ${failed.migration_name} failed earlier and was not rolled back; resolve it before starting ` +
          `(see https://pris.ly/d/migrate-resolve).`,
      );
    }
    const applied = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const known = new Set(migrations.map((m) => m.name));
    const unknown = [...applied.keys()].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new MigrationError(
        `The database has migrations this version does not know (${unknown.join(", ")}); ` +
          `it was migrated by a newer version of the service.`,
      );
    }

    const done: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          logger?.warn({ migration: migration.name }, "migration file changed after it was applied");
        }
        continue;
      }
      await applyOne(conn, migration);
      logger?.info({ migration: migration.name }, "applied migration");
      done.push(migration.name);
    }
    return done;
  } finally {
    await conn.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_KEY]);
  }
}

async function applyOne(conn: MigrationConnection, migration: Migration): Promise<void> {
  // PostgreSQL DDL is transactional: a migration that fails leaves neither its changes nor a history row.
  await conn.exec("BEGIN");
  try {
    await conn.exec(migration.sql);
    await conn.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await conn.exec("COMMIT");
  } catch (error) {
    await conn.exec("ROLLBACK");
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(`Migration ${migration.name} failed: ${reason}`);
  }
}
