import type { DiskSpace } from "./disk-space.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";

export type DatabaseKind = "pglite" | "postgres";

/**
 * Wraps the driver adapter a PrismaClient is built on: a seam for the tests, which count the statements sent
 * through it (test/support/statement-counter.ts).
 */
export type PrismaAdapterWrapper = <F extends { connect(): Promise<object> }>(factory: F) => F;

/** Raw SQL, for what Prisma's query builder does not express (vector search, full-text ranking, migrations). */
export interface Sql {
  query<R>(text: string, params?: unknown[]): Promise<R[]>;
  /** Runs a script of several statements. */
  exec(script: string): Promise<void>;
  /**
   * Runs `work` in one transaction, on one connection: committed if it resolves, rolled back if it throws.
   * On PostgreSQL, a transaction chosen as a deadlock's victim (or failing serialization) is run again, a few
   * times at most: `work` must therefore have no effect outside the database.
   */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
}

export interface Database {
  kind: DatabaseKind;
  /**
   * True when this process is the only one that can write (PGlite admits one process): in-process caches of
   * database state are then exact as long as every write goes through this process's services.
   */
  singleWriter: boolean;
  prisma: PrismaClient;
  sql: Sql;
  /** The free space of the embedded database's disk, below which it writes nothing (DiskSpace); none for PostgreSQL. */
  disk?: DiskSpace;
  close(): Promise<void>;
}
