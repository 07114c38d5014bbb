import type { Logger } from "../logger.ts";
import type { DiskSpace } from "./disk-space.ts";
import type { Sql } from "./database.ts";

const CHECK_EVERY_MS = 5_000;
/** Act when more than `rows`, plus this `share` of the table's live rows, changed. */
interface Threshold {
  rows: number;
  share: number;
}
// PostgreSQL's own autovacuum defaults
const ANALYZE: Threshold = { rows: 50, share: 0.1 };
const VACUUM: Threshold = { rows: 50, share: 0.2 };
// and for tables that only grow (memories, memory_terms): vacuuming them sets the visibility bits that let
// counts and BM25's document frequencies read the index alone (recall's feedback query: 31 -> 5 ms at 10k)
const INSERT_VACUUM: Threshold = { rows: 1_000, share: 0.2 };
/**
 * Single-user PostgreSQL has no checkpointer either: without a checkpoint no WAL segment can go, and pg_wal grew
 * to 720 MB at 100 000 memories (64 MB after the checkpoint of a clean stop). Checkpointing once half of
 * max_wal_size (pglite.ts) was written since the last one keeps pg_wal near max_wal_size.
 */
const CHECKPOINT_SHARE_OF_MAX_WAL = 0.5;
/**
 * Each statement holds the server's thread (the database runs in it): ANALYZE or VACUUM of a 10 000-memory table
 * takes 50-200 ms. A round ends once it has taken this long, the most overdue tables first; the rest wait for the
 * next round, so that a burst of writes, which makes every table due at once, meets one long pause every few
 * seconds rather than several in a row.
 */
const ROUND_BUDGET_MS = 20;

/**
 * ANALYZE copies its sample, 300 rows per point of statistics target (30 000 at PostgreSQL's default of 100), into
 * the database's memory, and PGlite's WebAssembly memory never shrinks: memories' rows, each with its vector,
 * grew it by 62 MB for good at 30 000 memories, 12 MB with a target of 20 (6 000 rows, still plenty for the
 * planner's view of a table whose queries go by user, thread, type and time).
 */
const STATISTICS_TARGETS: Readonly<Record<string, number>> = { "public.memories": 20 };

async function maintain(sql: Sql, table: string, vacuum: boolean, analyze: boolean): Promise<void> {
  const target = STATISTICS_TARGETS[table];
  if (target === undefined || !analyze) {
    await sql.exec(`${vacuum && analyze ? "VACUUM (ANALYZE)" : vacuum ? "VACUUM" : "ANALYZE"} ${table}`);
    return;
  }
  if (vacuum) await sql.exec(`VACUUM ${table}`);
  await sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL default_statistics_target = ${target}`);
    await tx.exec(`ANALYZE ${table}`);
  });
}

/** The tables over a threshold, the furthest over first, and what each needs. */
export function due(tables: readonly TableStats[]): { table: TableStats; vacuum: boolean; analyze: boolean }[] {
  const over = (changed: number, live: number, { rows, share }: Threshold) => changed / (rows + share * live);
  return tables
    .map((table) => {
      const vacuum = Math.max(over(table.dead, table.live, VACUUM), over(table.inserted, table.live, INSERT_VACUUM));
      const analyze = over(table.modified, table.live, ANALYZE);
      return { table, vacuum: vacuum > 1, analyze: analyze > 1, urgency: Math.max(vacuum, analyze) };
    })
    .filter(({ urgency }) => urgency > 1)
    .sort((a, b) => b.urgency - a.urgency);
}

export interface TableStats {
  name: string;
  live: number;
  dead: number;
  inserted: number;
  modified: number;
}

/**
 * PGlite runs PostgreSQL in single-user mode: there is no autovacuum. Without it the planner keeps the
 * statistics of a table as it was when last analysed (an empty table plans very differently from a full one),
 * and dead rows and unset visibility bits slow every count. So this does autovacuum's job for the embedded
 * database: every few seconds it reads the tables' change counters and analyses or vacuums the tables that
 * crossed autovacuum's default thresholds (for dead, changed and inserted rows), and checkpoints once enough WAL
 * has been written since the last checkpoint.
 */
export function startMaintenance(
  sql: Sql,
  logger: Logger,
  { checkEveryMs = CHECK_EVERY_MS, disk }: { checkEveryMs?: number; disk?: DiskSpace } = {},
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let saidLow = false;
  const check = async () => {
    try {
      if (disk?.low()) {
        if (!saidLow) logger.warn({ freeBytes: disk.free() }, "the data directory's disk is almost full: the embedded database neither checkpoints nor vacuums until space is freed (a checkpoint that cannot write stops it)");
        saidLow = true;
        return;
      }
      saidLow = false;
      const [wal] = await sql.query<{ bytes: number; max: number }>(
        `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 AS bytes,
                pg_size_bytes(current_setting('max_wal_size'))::float8 AS max
           FROM pg_control_checkpoint()`,
      );
      if (wal && wal.bytes > wal.max * CHECKPOINT_SHARE_OF_MAX_WAL) {
        const started = performance.now();
        await sql.exec("CHECKPOINT");
        logger.debug({ walBytes: wal.bytes, ms: Math.round(performance.now() - started) }, "checkpointed the embedded database");
      }
      // single-user PostgreSQL publishes its counters only when asked to
      await sql.query("SELECT pg_stat_force_next_flush()");
      const tables = await sql.query<TableStats>(
        `SELECT format('%I.%I', schemaname, relname) AS name, n_live_tup::float8 AS live, n_dead_tup::float8 AS dead,
                n_ins_since_vacuum::float8 AS inserted, n_mod_since_analyze::float8 AS modified
           FROM pg_stat_user_tables`,
      );
      const round = performance.now();
      for (const { table, vacuum, analyze } of due(tables)) {
        const started = performance.now();
        await maintain(sql, table.name, vacuum, analyze);
        logger.debug(
          { table: table.name, vacuum, analyze, ms: Math.round(performance.now() - started) },
          "maintained a table of the embedded database",
        );
        if (performance.now() - round > ROUND_BUDGET_MS) break;
      }
    } catch (error) {
      logger.warn({ err: error }, "embedded database maintenance failed");
    } finally {
      running = undefined;
    }
  };
  const timer = setInterval(() => {
    running ??= check();
  }, checkEveryMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
