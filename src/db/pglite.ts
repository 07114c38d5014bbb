import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import type { Database, Sql } from "./database.ts";
import { migrate } from "./migrate.ts";

/** Opens (creating and migrating if needed) the embedded database; `memory://` keeps it in memory. */
export async function openPGlite(dataDir: string, logger?: Logger): Promise<Database> {
  const inMemory = dataDir.startsWith("memory://");
  const lock = inMemory ? undefined : lockDataDir(dataDir);
  try {
    const pglite = await PGlite.create({ dataDir: inMemory ? "memory://" : dataDir, extensions: { vector } });
    const sql: Sql = {
      query: async <R>(text: string, params?: unknown[]) => (await pglite.query<R>(text, params)).rows,
      exec: async (script) => {
        await pglite.exec(script);
      },
    };
    await migrate(sql, logger);
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    return {
      kind: "pglite",
      singleWriter: true,
      prisma,
      sql,
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
