import type { Logger } from "../logger.ts";
import type { Sql } from "./database.ts";

const FIRST_RUN_MS = 10_000;
const INTERVAL_MS = 2 * 60_000;

/**
 * PGlite runs PostgreSQL in single-user mode: there is no autovacuum. Without it the planner keeps the
 * statistics of an empty database (and picks plans for one), and dead rows and unset visibility bits slow
 * every count. So the embedded database is vacuumed and analysed here: shortly after start (not at once, so
 * as not to hold up the first requests), then every few minutes.
 */
export function startMaintenance(sql: Sql, logger: Logger): { stop(): void } {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    const started = performance.now();
    try {
      await sql.exec("VACUUM (ANALYZE)");
      logger.debug({ ms: Math.round(performance.now() - started) }, "vacuumed and analysed the embedded database");
    } catch (error) {
      logger.warn({ err: error }, "embedded database maintenance failed");
    } finally {
      running = false;
    }
  };
  let timer = setTimeout(function again() {
    void run();
    timer = setTimeout(again, INTERVAL_MS);
    timer.unref();
  }, FIRST_RUN_MS);
  timer.unref();
  return { stop: () => clearTimeout(timer) };
}
