import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { ConfigError } from "../config.ts";
import type { Logger } from "../logger.ts";
import { ExactIndex } from "./exact.ts";
import { PgVectorIndex } from "./pgvector.ts";
import { UsearchThreadIndex } from "./usearch-client.ts";
import { VectorIndexUnavailable, type VectorIndex } from "./vector-index.ts";

/**
 * Qdrant when QDRANT_URL is set. Otherwise VECTOR_INDEX, where "auto" means: on the embedded database,
 * usearch in a thread of this process (else pgvector); on PostgreSQL, pgvector when the extension is there, else an exact
 * scan. usearch needs a database that only this process writes, so PostgreSQL never gets it.
 */
export async function openVectorIndex(config: Config, db: Database, logger: Logger): Promise<VectorIndex> {
  if (config.qdrant) {
    // loaded only when configured, like the database drivers (db/open.ts)
    const { QdrantIndex } = await import("./qdrant.ts");
    return QdrantIndex.open(config.qdrant, logger).catch((error: unknown) => {
      if (!(error instanceof VectorIndexUnavailable)) throw error;
      throw new ConfigError(`QDRANT_URL: ${error.message}`, { cause: error });
    });
  }
  const choice = config.vectorIndex;
  if (choice === "usearch" && !db.singleWriter) {
    throw new ConfigError("VECTOR_INDEX=usearch needs the embedded database: servers sharing PostgreSQL cannot share it.");
  }
  if ((choice === "auto" && db.singleWriter) || choice === "usearch") {
    const dir = config.dataDir.startsWith("memory://") ? undefined : join(config.dataDir, "vectors");
    const usearch = await UsearchThreadIndex.open(dir, logger);
    if (usearch) return usearch;
    if (choice === "usearch") throw new ConfigError("VECTOR_INDEX=usearch, but usearch has no binary for this platform.");
  }
  if (choice !== "exact") {
    const pgvector = await PgVectorIndex.open(db.sql, db.kind === "pglite");
    if (pgvector) return pgvector;
    if (choice === "pgvector") throw new ConfigError("VECTOR_INDEX=pgvector, but the database has no pgvector extension.");
    logger.warn(
      { exactSearchMaxMemories: config.exactSearchMaxMemories },
      "This PostgreSQL has no pgvector extension and QDRANT_URL is not set: a search compares the user's newest " +
        "EXACT_SEARCH_MAX_MEMORIES stored embeddings one by one (older memories are found by their words only). " +
        "Install pgvector or set QDRANT_URL.",
    );
  }
  return new ExactIndex(db.sql, config.exactSearchMaxMemories);
}
