import type { HeldClaims } from "./held-claims.ts";

/** A delivery claimed for an attempt (its attempt counted, its lease taken), with what sending it needs. */
export interface DueDelivery {
  id: string;
  payload: string;
  /** This attempt's number, from 1. */
  attempts: number;
  webhook_id: string;
  url: string;
  secret: string;
  /** The secret before the last rotation while its overlap lasts: the delivery is signed with it as well. */
  previous_secret: string | null;
}

/** A delivery's first attempt: no row yet (its event, claimed in the outbox, stands for it until it is recorded). */
export interface FirstAttempt extends DueDelivery {
  event_id: string;
  event_type: string;
  /**
   * When the event was written: the delivery's row is dated by it, so that deliveries recorded in one statement
   * (several rounds' outcomes at once) list newest first in the order of their events.
   */
  event_created_at: string;
  /** The keys it is ordered by (takeOut): its endpoint with the object, and with the memory's thread(s). */
  after: string[];
}

/** The endpoint's columns of a DueDelivery, from `webhooks w`. */
export const ENDPOINT_COLUMNS =
  "w.id AS webhook_id, w.url, w.secret, CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret";

/** An attempt that succeeded, not yet recorded. */
export interface Delivered {
  id: string;
  status: number;
  /** When its answer came, ms since the epoch. */
  at: number;
}

/** A first attempt's outcome, as its delivery's row is written. */
export interface FirstOutcome {
  attempt: FirstAttempt;
  /** False when it could not be made (unsent, sender.ts): pending, due at once, and no attempt counted. */
  attempted: boolean;
  status: "delivered" | "pending" | "failed";
  responseStatus: number | null;
  error: string | null;
  /** When a pending delivery is retried, from its attempt. */
  retryMs: number;
  /** When the attempt's outcome came, ms since the epoch: not when the round's outcomes are recorded. */
  at: number;
}

/** Claimed events whose first attempts have all been made: to take out of the outbox, their outcomes recorded. */
export interface FirstAttempts {
  seqs: string[];
  outcomes: FirstOutcome[];
}

/**
 * Records the successful attempts whose ids, statuses and times are the parameters `ids` (uuid[]), `statuses`
 * (int[]) and `times` (timestamptz[]), and ends their endpoints' failing streaks: the opening of a WITH, for the
 * statement that follows.
 */
export const recordDelivered = (ids: string, statuses: string, times: string): string =>
  `WITH delivered AS (
     UPDATE webhook_deliveries d
        SET status = 'delivered', delivered_at = r.at, response_status = r.status, last_error = NULL, payload = NULL
       FROM unnest(${ids}::uuid[], ${statuses}::int[], ${times}::timestamptz[]) AS r(id, status, at)
      WHERE d.id = r.id
     RETURNING d.webhook_id
   ), healed AS (
     UPDATE webhooks SET failing_since = NULL WHERE id IN (SELECT webhook_id FROM delivered) AND failing_since IS NOT NULL
   )`;

/**
 * Takes claimed events out of the outbox and records their deliveries' first attempts, each once: those that
 * succeeded as a row per endpoint in webhook_delivery_batches, the others as a row each in webhook_deliveries,
 * for their retries (never one before the attempt and another after); and ends the failing streaks of the
 * endpoints that succeeded: common table expressions, for a WITH; their parameters from `$first` on, as
 * `firstAttemptsParameters` orders them (the first, the events' seqs). A delivery whose endpoint was deleted
 * meanwhile is not recorded; one made again after its claim lapsed is recorded by whichever round takes its event
 * out first, with all of that round's outcomes for it, and the other round's are dropped.
 */
export function firstAttemptsRecorded(first: number): string {
  const $ = (n: number) => `$${first + n}`;
  return `taken_out AS (
     DELETE FROM events WHERE seq = ANY(${$(0)}::bigint[]) RETURNING id
   ), attempted AS (
     -- a delivery attempted by two rounds (its claim lapsed) and recorded at once: once, a success first, then an attempt
     SELECT DISTINCT ON (r.id) r.*
       FROM unnest(${$(1)}::uuid[], ${$(2)}::uuid[], ${$(3)}::uuid[], ${$(4)}::text[], ${$(5)}::text[], ${$(6)}::text[],
                   ${$(7)}::int[], ${$(8)}::text[], ${$(9)}::float8[], ${$(10)}::timestamptz[], ${$(11)}::timestamptz[],
                   ${$(12)}::int[])
            AS r(id, webhook_id, event_id, event_type, payload, status, response_status, last_error, retry_ms, created_at, at, attempts)
       JOIN webhooks w ON w.id = r.webhook_id
      ORDER BY r.id, r.status = 'delivered' DESC, r.attempts DESC
   ), recorded AS (
     INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, last_attempt_at,
                                     next_attempt_at, response_status, last_error, delivered_at, created_at)
     SELECT r.id, r.webhook_id, r.event_id, r.event_type, r.payload, r.status::webhook_delivery_status, r.attempts,
            CASE WHEN r.attempts > 0 THEN r.at END, r.at + r.retry_ms * interval '1 millisecond', r.response_status,
            r.last_error, NULL, r.created_at
       FROM attempted r
      WHERE r.status <> 'delivered' AND r.event_id IN (SELECT id FROM taken_out)
     ON CONFLICT (id) DO NOTHING
   ), batched AS (
     -- the aggregates of a group take its rows in one order: the arrays stay side by side
     -- delivered when the endpoint's last answer of the round came, not when a slower endpoint's did
     INSERT INTO webhook_delivery_batches (webhook_id, event_ids, event_types, event_created_ats, response_statuses, delivered_at)
     SELECT r.webhook_id, array_agg(r.event_id), array_agg(r.event_type), array_agg(r.created_at), array_agg(r.response_status),
            max(r.at)
       FROM attempted r
      WHERE r.status = 'delivered' AND r.event_id IN (SELECT id FROM taken_out)
      GROUP BY r.webhook_id
     RETURNING webhook_id
   ), healed AS (
     UPDATE webhooks SET failing_since = NULL WHERE id IN (SELECT webhook_id FROM batched) AND failing_since IS NOT NULL
   )`;
}

export function firstAttemptsParameters({ seqs, outcomes }: FirstAttempts): unknown[] {
  const column = <T>(of: (outcome: FirstOutcome) => T) => outcomes.map(of);
  return [
    seqs,
    column((o) => o.attempt.id),
    column((o) => o.attempt.webhook_id),
    column((o) => o.attempt.event_id),
    column((o) => o.attempt.event_type),
    // only a delivery still to be retried keeps its body
    column((o) => (o.status === "pending" ? o.attempt.payload : null)),
    column((o) => o.status),
    column((o) => o.responseStatus),
    column((o) => o.error),
    column((o) => o.retryMs),
    column((o) => o.attempt.event_created_at),
    column((o) => new Date(o.at).toISOString()),
    column((o) => (o.attempted ? 1 : 0)),
  ];
}

/** Claimed events, and their deliveries' first attempts: a round of the event relay's, for the sender to make. */
export interface ClaimedRound {
  seqs: string[];
  attempts: FirstAttempt[];
}

/**
 * Where the event relay hands the events it claimed for webhook endpoints (the DeliveryWorker), and from where
 * it takes their first attempts' outcomes to record in its next statement.
 */
export interface DeliverySender {
  /** How long a claimed event's attempts may take before the claim lapses (and they are made again). */
  readonly leaseMs: number;
  /** Where the claims are held when not in the events' rows (on the embedded database). */
  readonly held: HeldClaims | undefined;
  sendClaimed(round: ClaimedRound): void;
  /** Called whenever a round's first attempts have all been made, for the relay to record them (`takeRecordable`). */
  onAttempted(listener: () => void): void;
  /** The rounds attempted and not recorded yet, now the caller's to record. */
  takeRecordable(): FirstAttempts;
  /** Those the caller could not record after all: recorded later. */
  returnRecordable(attempted: FirstAttempts): void;
}
