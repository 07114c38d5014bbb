import type { Database } from "../db/database.ts";
import type { JsonObject } from "../domain/json.ts";
import type { Logger } from "../logger.ts";
import { WakeableLoop } from "./wakeable-loop.ts";
import { queueDeliveries, type WebhookBody } from "../webhooks/queue-deliveries.ts";
import type { ChangeEvent, EventType } from "./change-event.ts";
import type { ChangeFeed } from "./change-feed.ts";

interface OutboxRow {
  seq: string | bigint;
  id: string;
  type: EventType;
  user_id: string;
  object_id: string;
  thread_id: string | null;
  data: JsonObject | null;
  created_at: Date | string;
}

const CLAIM_LIMIT = 500;
// writes made by another instance (or left behind by a crash between commit and relay) wait at most this long
const POLL_MS = 1000;

/**
 * Moves committed events from the outbox (the events table) to the live feed and to the webhook deliveries.
 * Each event is taken out once, whichever instance gets it first (FOR UPDATE SKIP LOCKED; with REDIS_URL every
 * instance's subscribers hear it), in the transaction that queues its deliveries: an event is never lost to
 * the webhooks between the two. Taken out, not marked: a row kept would hold a copy of a memory's content, and
 * its disk, after the memory itself is gone.
 */
export class EventRelay extends WakeableLoop {
  /** `wake()` it once a write has committed; it calls `onDeliveriesQueued` when it has queued webhook deliveries. */
  constructor(
    private readonly db: Database,
    private readonly feed: ChangeFeed,
    private readonly logger: Logger,
    private readonly onDeliveriesQueued: () => void,
    private readonly webhookBody: WebhookBody,
  ) {
    super(POLL_MS);
  }

  protected async work(): Promise<void> {
    try {
      let claimed: ChangeEvent[];
      do {
        let queued = 0;
        claimed = await this.db.sql.transaction(async (sql) => {
          const rows = await sql.query<OutboxRow>(
            `DELETE FROM events
              WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
             RETURNING seq, id, type, user_id, object_id, thread_id, data, created_at`,
            [CLAIM_LIMIT],
          );
          const events = rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq))).map(eventOf);
          queued = events.length ? await queueDeliveries(sql, events, this.webhookBody) : 0;
          return events;
        });
        for (const event of claimed) this.feed.publish(event);
        if (queued) this.onDeliveriesQueued();
      } while (claimed.length === CLAIM_LIMIT && !this.stopped);
    } catch (error) {
      this.logger.warn({ err: error }, "could not relay events; retrying shortly");
    }
  }
}

function eventOf(row: OutboxRow): ChangeEvent {
  return {
    id: row.id,
    type: row.type,
    userId: row.user_id,
    objectId: row.object_id,
    threadId: row.thread_id,
    timestamp: new Date(row.created_at).toISOString(),
    data: row.data,
  };
}
