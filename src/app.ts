import type { AddressInfo } from "node:net";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { startMaintenance } from "./db/maintenance.ts";
import { openDatabase } from "./db/open.ts";
import { startControlServer, type ControlServer } from "./control/server.ts";
import { keyAdmin } from "./domain/key-admin.ts";
import { openServices, type ServiceOverrides, type Services } from "./domain/services.ts";
import { openEmbedder } from "./embeddings/open.ts";
import { getSchema } from "./graphql/schema.ts";
import { createGraphQL } from "./graphql/yoga.ts";
import type { Logger } from "./logger.ts";
import { localMcpUrl } from "./mcp/endpoint.ts";
import { createRouter } from "./rest/routes/index.ts";
import { createHttpServer, type HttpServer } from "./server.ts";
import { Metrics } from "./http/metrics.ts";
import { RateLimit } from "./http/rate-limit.ts";

const IDEMPOTENCY_PURGE_MS = 60 * 60_000;

export interface App {
  config: Config;
  logger: Logger;
  db: Database;
  services: Services;
  http: HttpServer;
  /** Starts listening on HOST:PORT; resolves with the bound address. */
  listen(): Promise<AddressInfo>;
  /** Graceful stop: in-flight requests finish, then the database is closed. */
  close(): Promise<void>;
}

/** Wires configuration, database, services and the HTTP server together. */
export async function createApp(config: Config, logger: Logger, overrides: ServiceOverrides = {}): Promise<App> {
  // the sentence encoder loads its model in its threads while the database opens
  const opening = overrides.embedder ? Promise.resolve(overrides.embedder) : openEmbedder(config);
  const closeEmbedder = () => opening.then((embedder) => embedder.close?.(), () => {});
  const db = await openDatabase(config, logger).catch(async (error: unknown) => {
    await closeEmbedder();
    throw error;
  });
  const metrics = new Metrics(config.metricsToken);
  const services = await opening
    .then((embedder) => openServices(db, config, logger, { ...overrides, embedder }, metrics))
    .catch(async (error: unknown) => {
      await closeEmbedder();
      await db.close();
      throw error;
    });
  services.indexer.start();
  services.relay.start();
  services.deliveries.start();
  metrics.watchIndexBacklog(() => services.indexer.waitingCount());
  const rateLimit = await RateLimit.create(config, logger, () => metrics.rateLimited());
  const http = createHttpServer({
    config,
    logger,
    services,
    schema: getSchema(),
    yoga: createGraphQL(config, logger, (name, type, seconds) => metrics.observeOperation(name, type, seconds)),
    router: createRouter(),
    rateLimit,
    metrics,
  });
  // the embedded database admits one process: the operator's CLI reaches it through this server
  let control: ControlServer | undefined;
  if (db.kind === "pglite" && !config.dataDir.startsWith("memory://")) {
    control = await startControlServer(
      config.dataDir,
      {
        keys: keyAdmin(services),
        reindex: (onProgress) => services.indexer.rebuild(onProgress),
        mcpUrl: () => {
          const address = http.server.address();
          return address && typeof address === "object" ? localMcpUrl(address) : undefined;
        },
      },
      logger,
    );
  }
  const maintenance = db.kind === "pglite" ? startMaintenance(db.sql, logger) : undefined;
  const purge = setInterval(() => {
    services.idempotency.purgeExpired().catch((error: unknown) => logger.warn({ err: error }, "could not purge idempotency keys"));
  }, IDEMPOTENCY_PURGE_MS).unref();
  return {
    config,
    logger,
    db,
    services,
    http,
    listen: () =>
      new Promise((resolve, reject) => {
        http.server.once("error", reject);
        http.server.listen(config.port, config.host, () => {
          http.server.off("error", reject);
          resolve(http.server.address() as AddressInfo);
        });
      }),
    async close() {
      await http.drain(config.shutdownTimeoutMs);
      clearInterval(purge);
      await rateLimit.close();
      await services.indexer.stop();
      await services.relay.stop();
      await services.deliveries.stop();
      await services.events.close();
      await services.index.close();
      await services.embedder.close?.();
      await maintenance?.stop();
      await control?.close();
      await db.close();
    },
  };
}
