import { randomUUID } from "node:crypto";
import type { Database } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import type { DeliverySender } from "../webhooks/due-delivery.ts";
import { takeOut, type WebhookBody } from "../webhooks/take-out.ts";
import { WakeableLoop } from "./wakeable-loop.ts";
import type { ChangeFeed } from "./change-feed.ts";

const CLAIM_LIMIT = 500;
// writes made by another instance (or left behind by a crash between commit and relay) wait at most this long
const POLL_MS = 1000;
// under a stream of writes (a round found several events), the next waits this long for more to take at once: on
// the embedded database a round's statement costs about 0.4 ms whatever it holds (0.8 with deliveries to record),
// and about 0.03 ms an event (0.04 with two endpoints), measured alone (bench/README.md, "Events"), so at ~1 000
// creates/s rounds of 50 rather than 10 save 0.03-0.06 ms a create; the price: under such a stream, events reach
// listeners up to 50 ms later
const GATHER_MS = 50;

/**
 * Moves committed events from the outbox (the events table) to the live feed and to the webhooks. Each event is
 * taken once, whichever instance gets it first (FOR UPDATE SKIP LOCKED; with REDIS_URL every instance's
 * subscribers hear it): out of the outbox when no endpoint wants it (a row kept would hold a copy of a memory's
 * content, and its disk, after the memory itself is gone), claimed when one does, and taken out with its
 * deliveries' first outcomes once their attempts are made: an event is never lost to the webhooks, and each
 * delivery is recorded once, on the way that most take. A round is one statement however many events and
 * endpoints (see takeOut), which also records the rounds whose first attempts have all succeeded since the last
 * one (`takeRecordable`): under a stream of writes, their outcomes cost no statement of their own.
 */
export class EventRelay extends WakeableLoop {
  /** Whose claims this instance's are, in the rows of PostgreSQL (takeOut): one id a process. */
  private readonly claimant = randomUUID();

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

  /**
   * On the embedded database no other process can hold a claim (the data directory is locked to this one, whose
   * claims are in memory), so any claim found in a row at start is a dead process's, of a version that claimed in
   * rows: its attempts are made again now, under the same ids, rather than once the claim lapses. Marked lapsed
   * rather than cleared, so the live feed does not publish them twice.
   */
  override start(): void {
    if (this.db.kind !== "pglite") return super.start();
    void this.db.sql
      .query("UPDATE events SET claimed_until = now() - interval '1 millisecond' WHERE claimed_until > now()")
      .catch((error: unknown) => this.logger.warn({ err: error }, "could not release a stopped process' webhook claims"))
      .then(() => {
        if (!this.stopped) super.start();
      });
  }

  protected async work(): Promise<number> {
    let found = 0;
    try {
      let taken: number;
      do {
        const recordable = this.sender.takeRecordable();
        const { leaseMs, held } = this.sender;
        const settings = { limit: CLAIM_LIMIT, leaseMs, webhookBody: this.webhookBody, held, claimant: this.claimant };
        const { events, round, ...took } = await takeOut(this.db.sql, recordable, settings).catch((error: unknown) => {
          this.sender.returnRecordable(recordable);
          throw error;
        });
        taken = took.found;
        found += taken;
        for (const event of events) this.feed.publish(event);
        if (round.seqs.length) this.sender.sendClaimed(round);
      } while (taken === CLAIM_LIMIT && !this.stopped);
    } catch (error) {
      this.logger.warn({ err: error }, "could not relay events; retrying shortly");
    }
    return found;
  }
}
