import type { PrismaClient } from "../generated/prisma/client.ts";

export type DatabaseKind = "pglite" | "postgres";

/** Raw SQL, for what Prisma's query builder does not express (vector search, full-text ranking, migrations). */
export interface Sql {
  query<R>(text: string, params?: unknown[]): Promise<R[]>;
  /** Runs a script of several statements. */
  exec(script: string): Promise<void>;
}

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  sql: Sql;
  close(): Promise<void>;
}
