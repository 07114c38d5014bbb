import type { Config } from "../config.ts";
import { remotePortability } from "../control/client.ts";
import { openDatabase } from "../db/open.ts";
import { openServices } from "../domain/services.ts";
import { getSchema } from "../graphql/schema.ts";
import { createLogger } from "../logger.ts";
import { portability, type Portability } from "../rest/portability.ts";
import { webhookBody } from "../rest/webhook-body.ts";
import { viaServerOr } from "./run.ts";

/** Runs `fn` with whoever may read and write the user's records: the server that holds the database, or this process. */
export function withPortability<T>(config: Config, fn: (portability: Portability) => Promise<T>): Promise<T> {
  return viaServerOr(config, () => fn(remotePortability(config.dataDir)), async () => {
    // stderr: stdout may be the export itself
    const logger = createLogger("warn", 2);
    const db = await openDatabase(config, "command", logger);
    try {
      const services = await openServices(db, config, logger, webhookBody);
      try {
        return await fn(portability(services, getSchema()));
      } finally {
        await services.indexer.stop();
        await services.index.close();
        await services.embedder.close?.();
        await services.events.close();
      }
    } finally {
      await db.close();
    }
  });
}
