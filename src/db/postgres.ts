import { setTimeout as sleep } from "node:timers/promises";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { ConfigError, withoutPassword } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { Database, PrismaAdapterWrapper, Sql } from "./database.ts";
import { PGVECTOR_SESSION_SETTINGS } from "./pgvector-settings.ts";
import { databaseOf } from "./prisma-database.ts";
import { migrate } from "./migrate.ts";

function clientSql(client: pg.ClientBase): Sql {
  return {
    query: async <R>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as R[],
    exec: async (script) => {
      await client.query(script);
    },
    transaction: () => {
      throw new Error("transactions do not nest");
    },
  };
}

// SQLSTATEs of a transaction aborted only for running alongside others (a deadlock's victim, a serialization
// failure): PostgreSQL leaves it to the client to run it again, which then succeeds or fails on its own merits
const RETRIED_SQLSTATES = new Set(["40P01", "40001"]);
const TRANSACTION_ATTEMPTS = 4;
// a random pause before running again, so that the transactions that collided do not collide again in step
const RETRY_PAUSE_MS = 10;

const retriable = (error: unknown): boolean =>
  error instanceof pg.DatabaseError && error.code !== undefined && RETRIED_SQLSTATES.has(error.code);

async function inTransaction<T>(pool: pg.Pool, work: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(clientSql(client));
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** `inTransaction`, run again (a few times at most) when PostgreSQL aborted it for a deadlock or serialization failure. */
async function retryingTransaction<T>(pool: pg.Pool, work: (sql: Sql) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(pool, work);
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !retriable(error)) throw error;
      await sleep(Math.random() * RETRY_PAUSE_MS * attempt);
    }
  }
}

/**
 * `pool.timeoutMs` bounds each wait for a connection (node-postgres' connectionTimeoutMillis): when the database
 * stops answering (stopped, its host gone), the pool's connections stay busy, and every request after them queued
 * for as long; past it a request answers 503 (errors.ts), having sent nothing. A statement once sent is waited
 * for: one failed by a timeout of its own may still be applied when the database answers again, and a create
 * answered 503 that was stored all the same would be stored twice by the client's retry.
 */
export async function openPostgres(
  url: string,
  { size, timeoutMs }: { size: number; timeoutMs: number },
  logger?: Logger,
  wrapAdapter: PrismaAdapterWrapper = (adapter) => adapter,
): Promise<Database> {
  const options = Object.entries(PGVECTOR_SESSION_SETTINGS)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(" ");
  // the migrations, which may build an index for minutes, on a connection of their own
  const migrator = new pg.Client({ connectionString: url, options, connectionTimeoutMillis: timeoutMs });
  migrator.on("error", () => {}); // a connection lost between statements: the next statement fails and says so
  try {
    await migrator.connect();
  } catch (error) {
    await migrator.end().catch(() => {});
    throw new ConfigError(`Cannot connect to the database at DATABASE_URL (${withoutPassword(url)}): ${(error as Error).message}`, { cause: error });
  }
  try {
    await migrate(clientSql(migrator), logger);
  } finally {
    await migrator.end().catch(() => {});
  }
  const pool = new pg.Pool({ connectionString: url, max: size, options, connectionTimeoutMillis: timeoutMs });
  pool.on("error", (error) => logger?.error({ err: error }, "idle PostgreSQL connection failed"));
  const sql: Sql = {
    query: async <R>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as R[],
    exec: async (script) => {
      await pool.query(script);
    },
    transaction: (work) => retryingTransaction(pool, work),
  };
  return databaseOf("postgres", sql, new PrismaPg(pool), () => pool.end(), wrapAdapter);
}
