import { setFlagsFromString } from "node:v8";
import { ConfigError, loadConfig } from "./config.ts";
import { DataDirBusyError } from "./db/data-dir-lock.ts";
import { MigrationError } from "./db/migrate.ts";
import { listenWhileStarting } from "./http/starting-server.ts";
import { listeningUrl } from "./transport/listening-url.ts";

async function main(): Promise<void> {
  // V8's gc for the worker threads started from here on, which collect once idle after calls (threads/thread-calls.ts)
  setFlagsFromString("--expose-gc");
  const config = loadConfig();
  // alive (/healthz) while the rest of the service loads and opens its database; ready (/readyz) once it has
  const server = await listenWhileStarting(config);
  const [{ createApp }, { createLogger }] = await Promise.all([import("./app.ts"), import("./logger.ts")]);
  const logger = createLogger(config.logLevel);
  const app = await createApp(config, logger, { server });
  const address = await app.listen();
  const { trimHeapsAfterWork } = await import("./threads/heap-trim.ts");
  const trimming = trimHeapsAfterWork(logger, app.services.embedder.ready?.());
  logger.info(
    { url: listeningUrl(address), database: app.db.kind },
    "memory service listening (GraphQL at /graphql, REST at /api/v1)",
  );

  let stopping = false;
  function stop(signal: string, exitCode = 0): void {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting without waiting");
      process.exit(1);
    }
    stopping = true;
    trimming.stop();
    logger.info({ signal }, "shutting down: finishing requests in flight");
    // requests get SHUTDOWN_TIMEOUT_MS; closing the database gets a little more before we give up on it
    setTimeout(() => {
      logger.error("shutdown did not finish in time; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs + 15_000).unref();
    app.close().then(
      () => {
        logger.info("stopped");
        process.exit(exitCode);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  }
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  // the sentence encoder loads its model while the service starts: a service that cannot embed cannot search
  app.services.embedder.ready?.().catch((error: unknown) => {
    if (stopping) return; // closed before its model had loaded
    logger.fatal({ err: error }, "the embedder could not load; stopping");
    stop("embedder failure", 1);
  });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirBusyError || error instanceof MigrationError) {
    console.error(error.message);
    if (error instanceof DataDirBusyError) console.error("Is the service already running on this DATA_DIR?");
  } else {
    console.error(error);
  }
  process.exit(1);
});
