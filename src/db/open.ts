import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { Database } from "./database.ts";
import { openPGlite } from "./pglite.ts";
import { openPostgres } from "./postgres.ts";

/** PostgreSQL when DATABASE_URL is set, else the embedded PGlite under DATA_DIR; migrated either way. */
export function openDatabase(config: Config, logger?: Logger): Promise<Database> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, config.databasePoolSize, logger)
    : openPGlite(config.dataDir, logger);
}
