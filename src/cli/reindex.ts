// npm run reindex: rebuilds the vector index from the database (see README, "Search").
import { loadConfig, type Config } from "../config.ts";
import { remoteReindex } from "../control/client.ts";
import { openDatabase } from "../db/open.ts";
import type { RebuildProgress } from "../domain/indexer.ts";
import { openServices } from "../domain/services.ts";
import { webhookBody } from "../rest/webhook-body.ts";
import { createLogger } from "../logger.ts";
import { runCli, UsageError, viaServerOr } from "./run.ts";

const USAGE = "usage: npm run reindex";

/** A bar on a terminal; a line every tenth of the way otherwise (CI logs). */
function progressReporter(): (progress: RebuildProgress) => void {
  let lastTenth = -1;
  return ({ done, total, embedded }) => {
    const fraction = total === 0 ? 1 : Math.min(1, done / total);
    const text = `${done}/${total} memories, ${embedded} embedded`;
    if (process.stderr.isTTY) {
      const width = 30;
      const filled = Math.round(fraction * width);
      process.stderr.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.round(fraction * 100)}% ${text}`);
      if (fraction === 1) process.stderr.write("\n");
    } else if (Math.floor(fraction * 10) > lastTenth) {
      lastTenth = Math.floor(fraction * 10);
      process.stderr.write(`${Math.round(fraction * 100)}% ${text}\n`);
    }
  };
}

/** In the server that holds the embedded database, when one runs; otherwise here. */
function rebuild(config: Config, onProgress: (progress: RebuildProgress) => void) {
  return viaServerOr(
    config,
    async () => ({ where: "the running server", ...(await remoteReindex(config.dataDir, onProgress)) }),
    async () => {
      const logger = createLogger("warn");
      const db = await openDatabase(config, "command", logger);
      try {
        const services = await openServices(db, config, logger, webhookBody);
        try {
          return { where: services.index.kind, ...(await services.indexer.rebuild(onProgress)) };
        } finally {
          await services.index.close();
          await services.embedder.close?.();
        }
      } finally {
        await db.close();
      }
    },
  );
}

await runCli(USAGE, async (print) => {
  if (process.argv.length > 2) throw new UsageError("reindex takes no arguments");
  const started = performance.now();
  const result = await rebuild(loadConfig(), progressReporter());
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  print(`Reindexed ${result.done} memories (${result.embedded} embedded anew) via ${result.where} in ${seconds} s.`);
});
