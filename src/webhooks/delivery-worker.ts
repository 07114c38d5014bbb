import type { WebhookSettings } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import { WakeableLoop } from "../events/wakeable-loop.ts";
import {
  ENDPOINT_COLUMNS,
  recordDelivered,
  firstAttemptsRecorded,
  type ClaimedRound,
  type Delivered,
  type DeliverySender,
  type DueDelivery,
  type FirstAttempts,
  type FirstOutcome,
} from "./due-delivery.ts";
import { HeldClaims } from "./held-claims.ts";
import { isUnsent, SenderThread, type Outcome } from "./sender.ts";

// deliveries sent at once by one instance
const CLAIM_LIMIT = 64;
// retries fall due, and other instances queue deliveries, without telling this one
const POLL_MS = 1000;
const PURGE_MS = 60 * 60_000;
// an attempt whose outcome was never recorded (its instance died) is made again this long after its batch reached
// the sender, beyond the two timeouts a batch takes at most (sender-thread.ts)
const LEASE_MARGIN_MS = 5_000;
const RETENTION = "7 days";

// past it a wait grows no longer: 4^n of the base overflowed PostgreSQL's interval after ~25 attempts
const LONGEST_RETRY_WAIT_MS = 7 * 24 * 3600_000;

/** The wait after a delivery's `attempts`-th failed attempt: retryBaseMs, four times longer each time, at most 7 days. */
export const retryWaitMs = (retryBaseMs: number, attempts: number): number =>
  Math.min(retryBaseMs * 4 ** (attempts - 1), LONGEST_RETRY_WAIT_MS);

/** A retry claimed, with when the attempt before it was made: restored if it cannot be made after all (unsent). */
interface ClaimedRetry extends DueDelivery {
  previous_attempt_at: Date | string | null;
}

/**
 * Sends webhook deliveries, signed as Standard Webhooks has it, from a thread of their own (SenderThread), and
 * records each outcome. First attempts come
 * from the event relay (sendClaimed): their event is claimed in the outbox while they are made, and they have no
 * row until their outcomes are written, once, in the statement that takes their event out (the successes a row per
 * endpoint and round, the failures a row each: firstAttemptsRecorded).
 * A round whose attempts all succeeded goes back to the relay, recorded in its next statement (under a stream of
 * writes, one statement a round fewer; recorded here instead once the relay has stopped); one with a failure is
 * recorded here, with its endpoints' failing streaks. Retries are claimed from the deliveries' rows (FOR UPDATE
 * SKIP LOCKED, so that several instances never send the same one) by pushing their due time past the attempt: if
 * the instance dies mid-attempt, the delivery falls due again. A failure is
 * retried after retryBaseMs, then four times longer each time (retryWaitMs), up to maxAttempts; an endpoint that has failed
 * every attempt for disableAfterMs is disabled, with its reason.
 */
export class DeliveryWorker extends WakeableLoop implements DeliverySender {
  readonly sender: SenderThread;
  private readonly inFlight = new Set<Promise<void>>();
  private unrecorded: FirstAttempts = { seqs: [], outcomes: [] };
  private attemptedListener: () => void = () => {};
  readonly leaseMs: number;
  readonly held: HeldClaims | undefined;

  constructor(
    private readonly db: Database,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {
    super(POLL_MS, { choreMs: PURGE_MS });
    this.leaseMs = 2 * settings.timeoutMs + LEASE_MARGIN_MS;
    this.held = db.kind === "pglite" ? new HeldClaims(this.leaseMs) : undefined;
    this.sender = new SenderThread({ timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate });
  }

  /** The attempts in flight finish (each within timeoutMs) and are recorded: call it once the relay has stopped. */
  override async stop(): Promise<void> {
    await super.stop();
    await Promise.all(this.inFlight);
    await this.recordFirst(this.takeRecordable()).catch((error: unknown) =>
      this.logger.warn({ err: error }, "could not record webhook deliveries; they are sent again after a restart"),
    );
    await this.sender.close();
  }

  sendClaimed(round: ClaimedRound): void {
    const sending = this.sendFirst(round)
      .catch((error: unknown) => this.logger.warn({ err: error }, "could not send or record webhook deliveries; they are made again"))
      .finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }

  /** A round's first attempts, at once: all successful, handed to the relay; with a failure, recorded here. */
  private async sendFirst({ seqs, attempts }: ClaimedRound): Promise<void> {
    const { maxAttempts, retryBaseMs } = this.settings;
    const sent = await this.sender.send(attempts);
    const outcomes = attempts.map((attempt, i): FirstOutcome => {
      const outcome = sent[i]!;
      const { at } = outcome;
      if (isUnsent(outcome)) return { attempt, attempted: false, status: "pending", responseStatus: null, error: null, retryMs: 0, at };
      if (outcome.ok) return { attempt, attempted: true, status: "delivered", responseStatus: outcome.status, error: null, retryMs: 0, at };
      const status = maxAttempts <= 1 ? "failed" : "pending";
      return { attempt, attempted: true, status, responseStatus: outcome.status, error: outcome.error, retryMs: retryBaseMs, at };
    });
    const failures = outcomes.flatMap(({ attempt, error, at }) => (error === null ? [] : [{ webhookId: attempt.webhook_id, error, at }]));
    if (outcomes.every(({ status }) => status === "delivered")) {
      this.unrecorded.seqs.push(...seqs);
      this.unrecorded.outcomes.push(...outcomes);
      this.attemptedListener();
      return;
    }
    await this.recordFirst({ seqs, outcomes });
    // a first attempt is a delivery's last only when one attempt is all it gets
    for (const { webhookId, error, at } of failures) await this.endpointFailed(webhookId, error, at, maxAttempts <= 1);
    if (outcomes.some(({ attempted }) => !attempted)) this.wake();
  }

  protected async work(): Promise<number> {
    let found = 0;
    try {
      let due: ClaimedRetry[];
      do {
        due = await this.db.sql.query<ClaimedRetry>(
          `UPDATE webhook_deliveries d
              SET attempts = d.attempts + 1, last_attempt_at = now(), next_attempt_at = now() + $2 * interval '1 millisecond'
             FROM webhooks w,
                  (SELECT x.id, x.last_attempt_at FROM webhook_deliveries x WHERE x.status = 'pending' AND x.next_attempt_at <= now()
                    ORDER BY x.next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) p
            WHERE w.id = d.webhook_id AND d.id = p.id
          RETURNING d.id, d.payload, d.attempts, p.last_attempt_at AS previous_attempt_at, ${ENDPOINT_COLUMNS}`,
          [CLAIM_LIMIT, this.leaseMs],
        );
        found += due.length;
        await this.sendAll(due);
      } while (due.length === CLAIM_LIMIT && !this.stopped);
    } catch (error) {
      this.logger.warn({ err: error }, "could not send webhook deliveries; retrying shortly");
    }
    return found;
  }

  onAttempted(listener: () => void): void {
    this.attemptedListener = listener;
  }

  takeRecordable(): FirstAttempts {
    const taken = this.unrecorded;
    this.unrecorded = { seqs: [], outcomes: [] };
    return taken;
  }

  returnRecordable({ seqs, outcomes }: FirstAttempts): void {
    this.unrecorded.seqs.unshift(...seqs);
    this.unrecorded.outcomes.unshift(...outcomes);
  }

  /**
   * Sends claimed retries at once and records their outcomes: the successes together, and those that could not be
   * made (unsent) put back as they were, due at once.
   */
  private async sendAll(due: ClaimedRetry[]): Promise<void> {
    const sent = await this.sender.send(due);
    const outcomes = due.map((delivery, i) => ({ delivery, outcome: sent[i]! }));
    await this.delivered(outcomes.flatMap(({ delivery, outcome }) => (outcome.ok ? [{ id: delivery.id, status: outcome.status, at: outcome.at }] : [])));
    await this.putBack(outcomes.flatMap(({ delivery, outcome }) => (isUnsent(outcome) ? [delivery] : [])));
    for (const { delivery, outcome } of outcomes) if (!outcome.ok && !isUnsent(outcome)) await this.failed(delivery, outcome);
  }

  private async putBack(unsent: ClaimedRetry[]): Promise<void> {
    if (unsent.length === 0) return;
    await this.db.sql.query(
      `UPDATE webhook_deliveries d SET attempts = d.attempts - 1, last_attempt_at = r.previous, next_attempt_at = now()
         FROM unnest($1::uuid[], $2::timestamptz[]) AS r(id, previous) WHERE d.id = r.id`,
      [unsent.map(({ id }) => id), unsent.map(({ previous_attempt_at }) => (previous_attempt_at === null ? null : new Date(previous_attempt_at).toISOString()))],
    );
  }

  /** Recorded together, the endpoints' failing streaks ended with them: one statement for a whole round. */
  private async delivered(done: Delivered[]): Promise<void> {
    if (done.length === 0) return;
    const times = done.map(({ at }) => new Date(at).toISOString());
    await this.db.sql.query(`${recordDelivered("$1", "$2", "$3")} SELECT 1`, [done.map(({ id }) => id), done.map(({ status }) => status), times]);
  }

  private async recordFirst(attempted: FirstAttempts): Promise<void> {
    if (attempted.seqs.length === 0) return;
    const { ctes, parameters } = firstAttemptsRecorded(attempted, 1);
    await this.db.sql.query(`WITH ${ctes} SELECT 1`, parameters);
    this.held?.release(attempted.seqs);
  }

  private async failed(delivery: DueDelivery, outcome: Extract<Outcome, { error: string }>): Promise<void> {
    const { maxAttempts, retryBaseMs } = this.settings;
    const last = delivery.attempts >= maxAttempts;
    await this.db.sql.query(
      `UPDATE webhook_deliveries
          SET status = $2::webhook_delivery_status, next_attempt_at = $6::timestamptz + $3 * interval '1 millisecond',
              response_status = $4, last_error = $5, payload = CASE WHEN $2 = 'pending' THEN payload END
        WHERE id = $1::uuid`,
      [delivery.id, last ? "failed" : "pending", retryWaitMs(retryBaseMs, delivery.attempts), outcome.status, outcome.error, new Date(outcome.at).toISOString()],
    );
    await this.endpointFailed(delivery.webhook_id, outcome.error, outcome.at, last);
  }

  /**
   * Starts or extends the endpoint's failing streak, and disables it once the streak has lasted disableAfterMs and a
   * delivery has run out of its attempts (`last`): an endpoint that failed once, then heard nothing for days, is not
   * disabled by the next failure before that delivery's retries have had their chance. A streak starts at the failed
   * attempt's answer (`at`), not when it is recorded: a round is recorded once its slowest attempt has ended, which
   * another endpoint's timeout can make seconds later.
   */
  private async endpointFailed(webhookId: string, error: string, at: number, last: boolean): Promise<void> {
    const [endpoint] = await this.db.sql.query<{ failing_since: Date | string }>(
      "UPDATE webhooks SET failing_since = coalesce(failing_since, $2::timestamptz) WHERE id = $1::uuid RETURNING failing_since",
      [webhookId, new Date(at).toISOString()],
    );
    if (!endpoint || !last || Date.now() - new Date(endpoint.failing_since).getTime() < this.settings.disableAfterMs) return;
    const since = new Date(endpoint.failing_since).toISOString();
    const [disabled] = await this.db.sql.query<{ id: string }>(
      "UPDATE webhooks SET enabled = false, disabled_reason = $2 WHERE id = $1::uuid AND enabled RETURNING id",
      [webhookId, `every attempt since ${since} failed (the last: ${error})`],
    );
    if (disabled) {
      await this.db.sql.query(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was disabled', payload = NULL
          WHERE webhook_id = $1::uuid AND status = 'pending'`,
        [webhookId],
      );
      this.logger.warn({ webhookId }, "webhook disabled after failing for too long");
    }
  }

  protected override async chore(): Promise<void> {
    try {
      await this.db.sql.query(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < now() - interval '${RETENTION}'`);
      await this.db.sql.query(`DELETE FROM webhook_delivery_batches WHERE delivered_at < now() - interval '${RETENTION}'`);
    } catch (error) {
      this.logger.warn({ err: error }, "could not purge old webhook deliveries");
    }
  }
}
