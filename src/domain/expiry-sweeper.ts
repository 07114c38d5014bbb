import type { Database } from "../db/database.ts";
import type { EventRelay } from "../events/event-relay.ts";
import type { Logger } from "../logger.ts";
import type { Indexer } from "./indexer.ts";
import type { ListTotals } from "./list-totals.ts";
import { PeriodicChore } from "./periodic-chore.ts";

// memories deleted a statement: a short transaction each, so that writes to the same rows never wait long
const BATCH = 500;

/**
 * Deletes expired memories from the database and the vector index. Reads leave expired memories out from
 * their expiry on (expiry.ts); this only reclaims their rows, terms and vectors. Each batch is one statement
 * that deletes the due rows it could lock and queues their index tasks (so the vector index follows, as for any
 * delete); rows another instance is deleting, or a request is changing, are skipped (SKIP LOCKED) and left to
 * it, or to the next sweep. The delete triggers write each memory's `memory.deleted` event and the `deleted`
 * version of its history, with no key (the service made the change).
 */
export class ExpirySweeper {
  private readonly sweeping: PeriodicChore;

  constructor(
    private readonly db: Database,
    private readonly totals: ListTotals,
    private readonly indexer: Indexer,
    private readonly relay: EventRelay,
    logger: Logger,
    everySeconds: number,
  ) {
    this.sweeping = new PeriodicChore(() => this.sweepAll(), everySeconds * 1000, logger, {
      done: "deleted expired memories",
      failed: "could not delete expired memories; trying again later",
    });
  }

  /** Deletes every memory expired by now, in batches; answers how many. One sweep at a time per process. */
  sweep(): Promise<number> {
    return this.sweeping.run();
  }

  private async sweepAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const gone = await this.db.sql.query<{ memoryId: string; userId: string }>(
        `WITH due AS (SELECT id FROM memories WHERE expires_at <= now() ORDER BY expires_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED),
              gone AS (DELETE FROM memories m USING due WHERE m.id = due.id RETURNING m.id, m.user_id)
         INSERT INTO index_tasks (memory_id, user_id) SELECT id, user_id FROM gone
         RETURNING memory_id AS "memoryId", user_id AS "userId"`,
      );
      if (gone.length === 0) return total;
      total += gone.length;
      const byUser = new Map<string, string[]>();
      for (const { memoryId, userId } of gone) {
        const ids = byUser.get(userId) ?? [];
        ids.push(memoryId);
        byUser.set(userId, ids);
      }
      byUser.forEach((ids, userId) => this.totals.changed(userId, ids));
      this.relay.wake();
      await this.indexer.flush(gone.map((row) => row.memoryId));
      if (gone.length < BATCH) return total;
    }
  }

  /** Sweeps now and every `everySeconds`, until stopped. */
  start(): void {
    this.sweeping.start();
  }

  /** Stops the timer and waits for a sweep in progress (its deletes then reach the index before the index closes). */
  stop(): Promise<void> {
    return this.sweeping.stop();
  }
}
