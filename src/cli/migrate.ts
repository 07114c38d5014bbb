// npm run migrate: applies pending migrations to the configured database (DATABASE_URL, else DATA_DIR).
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/open.ts";
import { createLogger } from "../logger.ts";
import { remoteMigrated } from "../control/client.ts";
import { runCli, UsageError, viaServerOr } from "./run.ts";

await runCli("usage: npm run migrate", async (print) => {
  if (process.argv.length > 2) throw new UsageError("migrate takes no arguments");
  const config = loadConfig();
  const done = await viaServerOr(
    config,
    async () => {
      await remoteMigrated(config.dataDir);
      return `${config.dataDir} is up to date: the server running on it applied the migrations as it started.`;
    },
    async () => {
      // opening the database migrates it
      const db = await openDatabase(config, "command", createLogger("info"));
      await db.close();
      return `${db.kind === "pglite" ? config.dataDir : "PostgreSQL"} is up to date.`;
    },
  );
  print(done);
});
