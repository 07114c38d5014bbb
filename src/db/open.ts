import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { DataDirHolder } from "./data-dir-lock.ts";
import type { Database, PrismaAdapterWrapper } from "./database.ts";

/**
 * PostgreSQL when DATABASE_URL is set, else the embedded PGlite under DATA_DIR, which `holder` then locks; migrated
 * either way. Each driver is loaded only when chosen: a server loads one of them, which shortens its start.
 */
export async function openDatabase(config: Config, holder: DataDirHolder, logger?: Logger, wrapAdapter?: PrismaAdapterWrapper): Promise<Database> {
  if (config.databaseUrl) {
    const { openPostgres } = await import("./postgres.ts");
    return openPostgres(config.databaseUrl, { size: config.databasePoolSize, timeoutMs: config.databaseTimeoutMs }, logger, wrapAdapter);
  }
  const { openPGlite } = await import("./pglite.ts");
  return openPGlite(config.dataDir, logger, { holder, sharedBuffersMb: config.pgliteSharedBuffersMb, wrapAdapter });
}
