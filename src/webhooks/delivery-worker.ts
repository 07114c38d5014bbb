import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { Webhook } from "standardwebhooks";
import type { WebhookSettings } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import { WakeableLoop } from "../events/wakeable-loop.ts";
import { send, type Attempt } from "./send.ts";

interface DueDelivery {
  id: string;
  payload: string;
  attempts: number;
  webhook_id: string;
  url: string;
  secret: string;
}

// deliveries sent at once by one instance
const CLAIM_LIMIT = 64;
// retries fall due, and other instances queue deliveries, without telling this one
const POLL_MS = 1000;
const PURGE_MS = 60 * 60_000;
// an attempt whose outcome was never recorded (its instance died) is made again this long after it began
const LEASE_MARGIN_MS = 5_000;
const RETENTION = "7 days";

/**
 * Sends queued webhook deliveries, signed as Standard Webhooks has it, and records each outcome. A delivery is
 * claimed (FOR UPDATE SKIP LOCKED, so that several instances never send the same one) by pushing its due time
 * past the attempt: if the instance dies mid-attempt, the delivery falls due again and another attempt is made.
 * A failure is retried after retryBaseMs, then four times longer each time, up to maxAttempts; an endpoint that
 * has failed every attempt for disableAfterMs is disabled, with its reason.
 */
export class DeliveryWorker extends WakeableLoop {
  // connections kept open between deliveries: a busy endpoint would otherwise cost a TCP (and TLS) handshake each
  private readonly agents = {
    "http:": new HttpAgent({ keepAlive: true, maxSockets: 16 }),
    "https:": new HttpsAgent({ keepAlive: true, maxSockets: 16 }),
  };

  constructor(
    private readonly db: Database,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {
    super(POLL_MS, PURGE_MS);
  }

  /** The attempts in flight finish (each within timeoutMs) and are recorded. */
  override async stop(): Promise<void> {
    await super.stop();
    for (const agent of Object.values(this.agents)) agent.destroy();
  }

  protected async work(): Promise<void> {
    try {
      let due: DueDelivery[];
      do {
        due = await this.db.sql.query<DueDelivery>(
          `UPDATE webhook_deliveries d
              SET attempts = d.attempts + 1, last_attempt_at = now(), next_attempt_at = now() + $2 * interval '1 millisecond'
             FROM webhooks w
            WHERE w.id = d.webhook_id
              AND d.id IN (SELECT x.id FROM webhook_deliveries x WHERE x.status = 'pending' AND x.next_attempt_at <= now()
                            ORDER BY x.next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING d.id, d.payload, d.attempts, w.id AS webhook_id, w.url, w.secret`,
          [CLAIM_LIMIT, this.settings.timeoutMs + LEASE_MARGIN_MS],
        );
        const outcomes = await Promise.all(due.map(async (delivery) => ({ delivery, outcome: await this.attempt(delivery) })));
        await this.delivered(outcomes.flatMap(({ delivery, outcome }) => (outcome.ok ? [{ delivery, status: outcome.status }] : [])));
        for (const { delivery, outcome } of outcomes) if (!outcome.ok) await this.failed(delivery, outcome);
      } while (due.length === CLAIM_LIMIT && !this.stopped);
    } catch (error) {
      this.logger.warn({ err: error }, "could not send webhook deliveries; retrying shortly");
    }
  }

  private attempt(delivery: DueDelivery): Promise<Attempt> {
    // the delivery's id is the message id: the same at every attempt, so that a receiver can drop repeats
    const headers = {
      "webhook-id": delivery.id,
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": new Webhook(delivery.secret).sign(delivery.id, new Date(), delivery.payload),
    };
    return send(delivery.url, delivery.payload, headers, { ...this.settings, agents: this.agents });
  }

  /** Recorded together: one statement for a whole round of successes (there may be thousands a second). */
  private async delivered(done: { delivery: DueDelivery; status: number }[]): Promise<void> {
    if (done.length === 0) return;
    await this.db.sql.query(
      `UPDATE webhook_deliveries d SET status = 'delivered', delivered_at = now(), response_status = r.status, last_error = NULL
         FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, status int)
        WHERE d.id = r.id`,
      [JSON.stringify(done.map(({ delivery, status }) => ({ id: delivery.id, status })))],
    );
    await this.db.sql.query("UPDATE webhooks SET failing_since = NULL WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL", [
      [...new Set(done.map(({ delivery }) => delivery.webhook_id))],
    ]);
  }

  private async failed(delivery: DueDelivery, outcome: Extract<Attempt, { ok: false }>): Promise<void> {
    const { maxAttempts, retryBaseMs, disableAfterMs } = this.settings;
    const last = delivery.attempts >= maxAttempts;
    await this.db.sql.query(
      `UPDATE webhook_deliveries
          SET status = $2::webhook_delivery_status, next_attempt_at = now() + $3 * interval '1 millisecond',
              response_status = $4, last_error = $5
        WHERE id = $1::uuid`,
      [delivery.id, last ? "failed" : "pending", retryBaseMs * 4 ** (delivery.attempts - 1), outcome.status, outcome.error],
    );
    const [endpoint] = await this.db.sql.query<{ failing_since: Date | string }>(
      "UPDATE webhooks SET failing_since = coalesce(failing_since, now()) WHERE id = $1::uuid RETURNING failing_since",
      [delivery.webhook_id],
    );
    if (!endpoint || Date.now() - new Date(endpoint.failing_since).getTime() < disableAfterMs) return;
    const since = new Date(endpoint.failing_since).toISOString();
    const [disabled] = await this.db.sql.query<{ id: string }>(
      "UPDATE webhooks SET enabled = false, disabled_reason = $2 WHERE id = $1::uuid AND enabled RETURNING id",
      [delivery.webhook_id, `every attempt since ${since} failed (the last: ${outcome.error})`],
    );
    if (disabled) {
      await this.db.sql.query(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was disabled'
          WHERE webhook_id = $1::uuid AND status = 'pending'`,
        [delivery.webhook_id],
      );
      this.logger.warn({ webhookId: delivery.webhook_id }, "webhook disabled after failing for too long");
    }
  }

  protected override async chore(): Promise<void> {
    try {
      await this.db.sql.query(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < now() - interval '${RETENTION}'`);
    } catch (error) {
      this.logger.warn({ err: error }, "could not purge old webhook deliveries");
    }
  }
}
