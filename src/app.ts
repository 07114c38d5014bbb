import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdmit, createSecretGuard } from "./auth/admit.ts";
import { RateLimit } from "./auth/rate-limit.ts";
import type { Config } from "./config.ts";
import type { Database, PrismaAdapterWrapper } from "./db/database.ts";
import { startMaintenance } from "./db/maintenance.ts";
import { openDatabase } from "./db/open.ts";
import { afterCommands } from "./db/data-dir-lock.ts";
import { remoteHandover } from "./control/client.ts";
import { startControlServer, type ControlServer } from "./control/server.ts";
import { backfillContentKeys } from "./domain/dedupe.ts";
import { keyAdmin } from "./domain/key-admin.ts";
import { openServices, type ServiceOverrides, type Services } from "./domain/services.ts";
import { halveStoredVectors, storedDimensions } from "./domain/stored-vectors.ts";
import { openEmbedder } from "./embeddings/open.ts";
import { contextFor } from "./graphql/context.ts";
import { createGraphQLEndpoint } from "./graphql/endpoint.ts";
import { getSchema } from "./graphql/schema.ts";
import { createGraphQL } from "./graphql/yoga.ts";
import { createApiDocs } from "./docs/api-docs.ts";
import { dashboardBuilt } from "./http/dashboard.ts";
import { Metrics } from "./http/metrics.ts";
import type { Logger } from "./logger.ts";
import { createMcpEndpoint, localMcpUrl } from "./mcp/endpoint.ts";
import { createRestDispatch } from "./rest/dispatch.ts";
import { portability } from "./rest/portability.ts";
import { createRouter } from "./rest/routes/index.ts";
import { webhookBody } from "./rest/webhook-body.ts";
import { createHttpServer, type HttpServer } from "./server.ts";
import { EventStreams } from "./transport/event-stream.ts";

const IDEMPOTENCY_PURGE_MS = 60 * 60_000;

/** The services' seams for tests, and the app's: a wrapper around Prisma's driver adapter, and the clock. */
export interface AppOverrides extends ServiceOverrides {
  wrapPrismaAdapter?: PrismaAdapterWrapper;
  /** What time it is for the legacy routes' sunset. */
  now?: () => Date;
  /** The server `npm start` listens on while the app starts (`listenWhileStarting`): the app takes it over. */
  server?: Server;
  /**
   * Given by an MCP relay that starts the service for its client (cli/mcp-service.ts): it holds the embedded
   * database as a relay, and this is called when a server that starts asks for it.
   */
  handover?: () => void;
}

export interface App {
  config: Config;
  logger: Logger;
  db: Database;
  services: Services;
  http: HttpServer;
  /** Starts listening on HOST:PORT (unless its server listens already); resolves with the bound address. */
  listen(): Promise<AddressInfo>;
  /** Graceful stop: in-flight requests finish, then the database is closed. */
  close(): Promise<void>;
}

/** Wires configuration, database, services and the HTTP server together. */
export async function createApp(config: Config, logger: Logger, overrides: AppOverrides = {}): Promise<App> {
  // the sentence encoder loads its model in its threads while the database opens; an endpoint down at start is
  // taken to make vectors as long as those it made before (the database's word, once it is open)
  let databaseOpened: (db: Database) => void = () => {};
  let databaseFailed: (error: unknown) => void = () => {};
  const opened = new Promise<Database>((resolve, reject) => {
    databaseOpened = resolve;
    databaseFailed = reject;
  });
  opened.catch(() => {});
  const remembered = async (stem: string) => storedDimensions(await opened, stem);
  const opening = overrides.embedder ? Promise.resolve(overrides.embedder) : openEmbedder(config, logger, remembered);
  const closeEmbedder = () => opening.then((embedder) => embedder.close?.(), () => {});
  const holder = overrides.handover ? "relay" : "server";
  // a server asks a relay that holds the directory for it; a relay finds a holder through its control socket instead
  const askRelay = holder === "server" ? () => void remoteHandover(config.dataDir).catch(() => {}) : undefined;
  const db = await afterCommands(() => openDatabase(config, holder, logger, overrides.wrapPrismaAdapter), logger, askRelay).catch(async (error: unknown) => {
    databaseFailed(error);
    await closeEmbedder();
    throw error;
  });
  databaseOpened(db);
  const metrics = new Metrics(config.metricsToken);
  const services = await opening
    .then((embedder) => openServices(db, config, logger, webhookBody, { ...overrides, embedder }, metrics))
    .catch(async (error: unknown) => {
      await closeEmbedder();
      await db.close();
      throw error;
    });
  services.indexer.start();
  services.events.connect();
  services.relay.start();
  services.deliveries.start();
  services.history.start();
  // memories written before the duplicate guard get their keys while the server answers (until then only exact
  // duplicates among newer memories are caught)
  backfillContentKeys(db, logger).catch((error: unknown) => logger.error({ err: error }, "could not make the duplicate guard's content keys"));
  halveStoredVectors(db, logger).catch((error: unknown) => logger.error({ err: error }, "could not store older vectors in half precision"));
  services.expiry.start();
  metrics.watchIndexBacklog(() => services.indexer.waitingCount());
  metrics.watchIndexSize(() => services.index.count(services.embedder.id));
  const rateLimit = await RateLimit.create(config, logger, () => metrics.rateLimited());
  const http = createHttpServer({
    config,
    logger,
    services,
    metrics,
    server: overrides.server,
    ...endpoints(config, logger, services, rateLimit, metrics, overrides.now),
  });
  // the embedded database admits one process: the operator's CLI reaches it through this server
  let control: ControlServer | undefined;
  if (db.kind === "pglite" && !config.dataDir.startsWith("memory://")) {
    control = await startControlServer(
      config.dataDir,
      {
        keys: keyAdmin(services),
        reindex: (onProgress) => services.indexer.rebuild(onProgress),
        portability: portability(services, getSchema()),
        mcpUrl: () => {
          const address = http.server.address();
          return address && typeof address === "object" ? localMcpUrl(address) : undefined;
        },
        ...(overrides.handover ? { handover: overrides.handover } : {}),
      },
      logger,
    );
  }
  for (const unused of config.unused) logger.warn(unused);
  if (!dashboardBuilt()) logger.warn("the dashboard is not built (npm run build:dashboard): /dashboard answers 503; the API is unaffected");
  const maintenance = db.kind === "pglite" ? startMaintenance(db.sql, logger, { disk: services.disk }) : undefined;
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
        if (http.server.listening) return resolve(http.server.address() as AddressInfo);
        http.server.once("error", reject);
        http.server.listen(config.port, config.host, () => {
          http.server.off("error", reject);
          resolve(http.server.address() as AddressInfo);
        });
      }),
    async close() {
      await http.drain(config.shutdownTimeoutMs, config.shutdownIdleGraceMs);
      clearInterval(purge);
      await rateLimit.close();
      await services.expiry.stop();
      await services.indexer.stop();
      await services.relay.stop();
      await services.deliveries.stop();
      await services.history.stop();
      await services.events.close();
      await services.index.close();
      await services.embedder.close?.();
      await maintenance?.stop();
      await control?.close();
      await db.close();
    },
  };
}

/**
 * The server's endpoints, each reaching the services through the one admission of API keys (with its rate
 * limits) and the one request context.
 */
function endpoints(config: Config, logger: Logger, services: Services, rateLimit: RateLimit, metrics: Metrics, now?: () => Date) {
  const schema = getSchema();
  const router = createRouter(now);
  const eventStreams = new EventStreams(config.http.maxEventStreamsPerUser);
  metrics.watchEventStreams(() => eventStreams.count);
  const deps = {
    config,
    logger,
    schema,
    router,
    idempotency: services.idempotency,
    contextFor: contextFor(services, createAdmit(services.apiKeys, rateLimit, config.trustProxyHops)),
  };
  const yoga = createGraphQL(config, logger, (name, type, seconds) => metrics.observeOperation(name, type, seconds));
  const guarded = createSecretGuard(rateLimit, config.trustProxyHops);
  return {
    scrape: config.metricsToken ? (req: IncomingMessage) => guarded(req, () => metrics.scrape(req)) : (req: IncomingMessage) => metrics.scrape(req),
    graphql: createGraphQLEndpoint({ ...deps, yoga, eventStreams }),
    rest: createRestDispatch(deps),
    mcp: createMcpEndpoint(deps),
    apiDocs: createApiDocs(router, config),
    eventStreams,
  };
}
