import type { PrismaClient } from "../generated/prisma/client.ts";
import type { StatementCounter } from "./counting-adapter.ts";

export type DatabaseKind = "pglite" | "postgres";

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
  /** How many statements Prisma has sent so far. */
  prismaStatements: StatementCounter;
  sql: Sql;
  close(): Promise<void>;
}
