import { PrismaClient } from "../generated/prisma/client.ts";
import type { Database, DatabaseKind, PrismaAdapterWrapper, Sql } from "./database.ts";

type DriverAdapter = NonNullable<NonNullable<ConstructorParameters<typeof PrismaClient>[0]>["adapter"]>;

/**
 * A database opened on either driver: Prisma through `adapter` (wrapped by `wrapAdapter`, the tests' seam), raw SQL
 * through `sql`. `closeDriver` runs once Prisma has let go. PGlite admits one process: it alone is the single writer.
 */
export function databaseOf(
  kind: DatabaseKind,
  sql: Sql,
  adapter: DriverAdapter,
  closeDriver: () => Promise<void>,
  wrapAdapter: PrismaAdapterWrapper = (factory) => factory,
): Database {
  const prisma = new PrismaClient({ adapter: wrapAdapter(adapter) });
  return {
    kind,
    singleWriter: kind === "pglite",
    prisma,
    sql,
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}
