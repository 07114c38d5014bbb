import type { Database } from "../db/database.ts";
import type { JsonObject } from "../domain/json.ts";
import type { Logger } from "../logger.ts";
import { firstAttemptsParameters, recordFirstAttempts, type DeliverySender } from "../webhooks/due-delivery.ts";
import { takeOut, UNCLAIMED, type WebhookBody } from "../webhooks/queue-deliveries.ts";
import { WakeableLoop } from "./wakeable-loop.ts";
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
  wanted: boolean;
  unpublished: boolean;
}

const CLAIM_LIMIT = 500;
// writes made by another instance (or left behind by a crash between commit and relay) wait at most this long
const POLL_MS = 1000;
// under a stream of writes (a round found several events), the next waits this long for more to take at once
const GATHER_MS = 20;

/**
 * Moves committed events from the outbox (the events table) to the live feed and to the webhooks. Each event is
 * taken once, whichever instance gets it first (FOR UPDATE SKIP LOCKED; with REDIS_URL every instance's
 * subscribers hear it): out of the outbox when no endpoint wants it (a row kept would hold a copy of a memory's
 * content, and its disk, after the memory itself is gone), claimed when one does, and taken out with its
 * deliveries' first outcomes once their attempts are made: an event is never lost to the webhooks, and each
 * delivery's row is written once on the way that most take. A round reads the outbox, then takes what it read:
 * two statements however many events and endpoints (the deliveries' bodies are made in between, by the REST
 * layer's shape). The read also records the rounds whose first attempts have all succeeded since the last one
 * (`takeRecordable`): under a stream of writes, their outcomes cost no statement of their own.
 */
export class EventRelay extends WakeableLoop {
  /** `wake()` it once a write has committed. */
  constructor(
    private readonly db: Database,
    private readonly feed: ChangeFeed,
    private readonly logger: Logger,
    private readonly sender: DeliverySender,
    private readonly webhookBody: WebhookBody,
  ) {
    super(POLL_MS, { gatherMs: GATHER_MS });
    sender.onAttempted(() => this.wake());
  }

  /** Reads the outbox, recording the sender's attempted rounds in the same statement (given back if it fails). */
  private async readRecording(): Promise<OutboxRow[]> {
    const attempted = this.sender.takeRecordable();
    if (attempted.seqs.length === 0) return this.db.sql.query<OutboxRow>(READ, [CLAIM_LIMIT]);
    try {
      return await this.db.sql.query<OutboxRow>(`${recordFirstAttempts(2)} ${READ}`, [CLAIM_LIMIT, ...firstAttemptsParameters(attempted)]);
    } catch (error) {
      this.sender.returnRecordable(attempted);
      throw error;
    }
  }

  protected async work(): Promise<number> {
    let found = 0;
    try {
      let rows: OutboxRow[];
      do {
        // an endpoint registered between this read and the take-out misses these events, as it would had it
        // been registered a moment later
        rows = await this.readRecording();
        if (rows.length === 0) break;
        found += rows.length;
        const read = rows.map((row) => ({ seq: String(row.seq), event: eventOf(row), wanted: row.wanted, unpublished: row.unpublished }));
        const { events, round } = await takeOut(this.db.sql, read, this.webhookBody, this.sender.leaseMs);
        for (const event of events) this.feed.publish(event);
        if (round.seqs.length) this.sender.sendClaimed(round);
      } while (rows.length === CLAIM_LIMIT && !this.stopped);
    } catch (error) {
      this.logger.warn({ err: error }, "could not relay events; retrying shortly");
    }
    return found;
  }
}

/**
 * The outbox's first events that no instance is making attempts for, each with whether an enabled endpoint of its
 * user wants its type. (Prefixed by recordFirstAttempts, it sees the events that statement takes out as they
 * were before it: still claimed, so not read again.)
 */
const READ = `SELECT e.seq, e.id, e.type, e.user_id, e.object_id, e.thread_id, e.data, e.created_at, e.claimed_until IS NULL AS unpublished,
                     EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = e.user_id AND w.enabled AND e.type = ANY(w.events)) AS wanted
                FROM events e WHERE ${UNCLAIMED} ORDER BY e.seq LIMIT $1`;

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
