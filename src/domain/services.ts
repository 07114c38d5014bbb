import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Embedder } from "../embeddings/embedder.ts";
import { ChangeFeed } from "../events/change-feed.ts";
import { EventRelay } from "../events/event-relay.ts";
import { DeliveryWorker } from "../webhooks/delivery-worker.ts";
import type { WebhookBody } from "../webhooks/take-out.ts";
import { openEmbedder } from "../embeddings/open.ts";
import type { Logger } from "../logger.ts";
import { DuplicateGuard } from "./dedupe.ts";
import { ExpirySweeper } from "./expiry-sweeper.ts";
import { ExportService } from "./export.ts";
import { HistoryService } from "./history.ts";
import { ImportService } from "./import.ts";
import { openVectorIndex } from "../vectors/open.ts";
import { DraftedIndex } from "../vectors/drafted-index.ts";
import { VectorIndexUnavailable, type VectorIndex } from "../vectors/vector-index.ts";
import { IdempotencyService } from "./idempotency.ts";
import { Indexer } from "./indexer.ts";
import { ApiKeyService } from "./api-key.ts";
import { ListTotals } from "./list-totals.ts";
import type { DiskSpace } from "../db/disk-space.ts";
import { TermIndex } from "./term-index.ts";
import { TermStats } from "./term-stats.ts";
import { MemoryService } from "./memory.ts";
import { RecallService } from "./recall.ts";
import { SearchService } from "./search.ts";
import { ThreadService } from "./thread.ts";
import { UserService } from "./user.ts";
import { WebhookService } from "./webhook.ts";

/** The business rules, free of any transport; GraphQL resolvers (and through them REST) call these. */
export interface Services {
  db: Database;
  users: UserService;
  apiKeys: ApiKeyService;
  memories: MemoryService;
  search: SearchService;
  recall: RecallService;
  threads: ThreadService;
  idempotency: IdempotencyService;
  embedder: Embedder;
  index: VectorIndex;
  indexer: Indexer;
  /** The user's memory count and terms' document frequencies, kept between writes (recall's BM25). */
  termStats: TermStats;
  /** Users' terms copied into this process for recall's BM25, where it is the only writer (the embedded database). */
  termIndex: TermIndex | undefined;
  /** Committed changes, live, per user (GraphQL subscriptions). */
  events: ChangeFeed;
  /** Moves events from the outbox to the feed and the webhook queue; started by the server, not by the CLI. */
  relay: EventRelay;
  webhooks: WebhookService;
  /** Sends webhook deliveries; started by the server. */
  deliveries: DeliveryWorker;
  /** Memories' history; its purge of deleted memories' history is started by the server. */
  history: HistoryService;
  /** Deletes expired memories from the database and the vector index; started by the server. */
  expiry: ExpirySweeper;
  /** A user's threads and memories, streamed out (export) and read back in (import). */
  exports: ExportService;
  /** The free space of the embedded database's disk (its writes, maintenance and /readyz heed it); none for PostgreSQL. */
  disk: DiskSpace | undefined;
  imports: ImportService;
}

/** Seams for tests: a failing or counting embedder, or a wrapper around the configured index. */
export interface ServiceOverrides {
  embedder?: Embedder;
  wrapIndex?: (index: VectorIndex) => VectorIndex;
}

/** Wrappers that observe every call to the embedder and the index, for the server's metrics. */
export interface Instrumentation {
  embedder(embedder: Embedder): Embedder;
  index(index: VectorIndex): VectorIndex;
}

/** Opens the embedder and the vector index configured, and the services over them. */
export async function openServices(
  db: Database,
  config: Config,
  logger: Logger,
  webhookBody: WebhookBody,
  overrides: ServiceOverrides = {},
  instrumentation?: Instrumentation,
): Promise<Services> {
  const chosen = overrides.embedder ?? (await openEmbedder(config, logger));
  const embedder = instrumentation ? instrumentation.embedder(chosen) : chosen;
  const opened = await openVectorIndex(config, db, logger);
  const wrapped = overrides.wrapIndex ? overrides.wrapIndex(opened) : opened;
  const index = instrumentation ? instrumentation.index(wrapped) : wrapped;
  await index.ensure(embedder.id, embedder.dimensions).catch((error: unknown) => {
    // a remote index away at start (Qdrant) is ensured at its first request instead, as one found gone later is
    if (!(error instanceof VectorIndexUnavailable)) throw error;
    logger.warn({ err: error.message, vectorIndex: index.kind }, "the vector index does not answer: its collection is made when it does");
  });
  logger.info({ embedder: embedder.id, vectorIndex: index.kind }, "search ready");
  const events = await ChangeFeed.open(config.redisUrl, logger);
  return createServices(db, config, embedder, index, events, logger, webhookBody);
}

function createServices(
  db: Database,
  config: Config,
  embedder: Embedder,
  configuredIndex: VectorIndex,
  events: ChangeFeed,
  logger: Logger,
  webhookBody: WebhookBody,
): Services {
  // the index with the drafts of memories waiting for their vectors beside it: what searches and counts see
  const index = new DraftedIndex(configuredIndex);
  const totals = new ListTotals(db.singleWriter);
  const deliveries = new DeliveryWorker(db, config.webhooks, logger);
  const relay = new EventRelay(db, events, logger, deliveries, webhookBody);
  const indexer = new Indexer(db, embedder, index, logger, config.embedderWaitMs);
  const termStats = new TermStats(db, totals);
  const termIndex = db.singleWriter ? new TermIndex(db, logger) : undefined;
  if (termIndex) totals.watch((userId, memoryIds) => termIndex.changed(userId, memoryIds));
  const search = new SearchService(db, embedder, index, config.limits, config.exactSearchMaxMemories, config.embedderWaitMs, termStats, termIndex);
  const memories = new MemoryService(new DuplicateGuard(db, embedder, logger, config.dedupe), db, config.limits, totals, indexer, relay);
  const history = new HistoryService(db, config.historyRetentionDays, logger);
  const expiry = new ExpirySweeper(db, totals, indexer, relay, logger, config.expirySweepSeconds);
  return {
    db,
    embedder,
    index,
    indexer,
    users: new UserService(db),
    idempotency: new IdempotencyService(db),
    apiKeys: new ApiKeyService(db, config.maxKeysPerUser),
    memories,
    threads: new ThreadService(db, config.limits, totals, indexer, relay),
    search,
    recall: new RecallService(db, search, termStats, termIndex),
    termStats,
    termIndex,
    events,
    relay,
    webhooks: new WebhookService(db, config.webhooks),
    deliveries,
    history,
    expiry,
    exports: new ExportService(db, history),
    disk: db.disk,
    imports: new ImportService(memories, history, expiry, db, config.limits, totals, indexer, relay),
  };
}
