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

/** Common table expressions for a WITH, and their parameters. */
export interface Recording {
  ctes: string;
  parameters: unknown[];
}

// of a delivery's outcomes in one recording (rounds that attempted it, its claim having lapsed), the one kept: a
// success first, then an attempt made, then the first given
const rank = ({ status, attempted }: FirstOutcome) => (status === "delivered" ? 2 : 0) + (attempted ? 1 : 0);

/**
 * Takes claimed events out of the outbox and records their deliveries' first attempts, each once: those that
 * succeeded as a row per endpoint in webhook_delivery_batches, the others as a row each in webhook_deliveries,
 * for their retries (never one before the attempt and another after); and ends the failing streaks of the
 * endpoints that succeeded. Its parameters are numbered from `$first`, the first of them the events' seqs. Each
 * delivery is dated, and typed, by its event's row as it leaves the outbox. A delivery whose endpoint was deleted
 * meanwhile is not recorded; one made again after its claim lapsed is recorded by whichever round takes its event
 * out first, with all of that round's outcomes for it, and the other round's are dropped. Under a stream of writes
 * nearly every round is all successes, recorded from four arrays (the others take ten): about a third less of the
 * database's time than one set of twelve arrays for both (bench/README.md, "Events").
 */
export function firstAttemptsRecorded({ seqs, outcomes }: FirstAttempts, first: number): Recording {
  const byDelivery = new Map<string, FirstOutcome>();
  for (const outcome of outcomes) {
    const kept = byDelivery.get(outcome.attempt.id);
    if (!kept || rank(outcome) > rank(kept)) byDelivery.set(outcome.attempt.id, outcome);
  }
  const chosen = [...byDelivery.values()];
  const delivered = chosen.filter(({ status }) => status === "delivered");
  const others = chosen.filter(({ status }) => status !== "delivered");
  const isoAt = ({ at }: FirstOutcome) => new Date(at).toISOString();
  const parameters: unknown[] = [seqs];
  const $ = (values: unknown[], type: string) => `$${first + parameters.push(values) - 1}::${type}[]`;
  const ctes = [`taken_out AS (DELETE FROM events WHERE seq = ANY($${first}::bigint[]) RETURNING id, type, created_at)`];
  if (others.length) {
    ctes.push(`recorded AS (
     INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, payload, status, attempts, last_attempt_at,
                                     next_attempt_at, response_status, last_error, delivered_at, created_at)
     SELECT r.id, r.webhook_id, r.event_id, t.type, r.payload, r.status::webhook_delivery_status, r.attempts,
            CASE WHEN r.attempts > 0 THEN r.at END, r.at + r.retry_ms * interval '1 millisecond', r.response_status,
            r.last_error, NULL, t.created_at
       FROM unnest(${$(others.map((o) => o.attempt.id), "uuid")}, ${$(others.map((o) => o.attempt.webhook_id), "uuid")},
                   ${$(others.map((o) => o.attempt.event_id), "uuid")},
                   ${$(others.map((o) => (o.status === "pending" ? o.attempt.payload : null)), "text")},
                   ${$(others.map((o) => o.status), "text")}, ${$(others.map((o) => o.responseStatus), "int")},
                   ${$(others.map((o) => o.error), "text")}, ${$(others.map((o) => o.retryMs), "float8")},
                   ${$(others.map(isoAt), "timestamptz")}, ${$(others.map((o) => (o.attempted ? 1 : 0)), "int")})
            AS r(id, webhook_id, event_id, payload, status, response_status, last_error, retry_ms, at, attempts)
       JOIN taken_out t ON t.id = r.event_id
       JOIN webhooks w ON w.id = r.webhook_id
     ON CONFLICT (id) DO NOTHING
   )`);
  }
  if (delivered.length) {
    // the aggregates of a group take its rows in one order: the arrays stay side by side; delivered when the
    // endpoint's last answer of the round came, not when a slower endpoint's did
    ctes.push(`batched AS (
     INSERT INTO webhook_delivery_batches (webhook_id, event_ids, event_types, event_created_ats, response_statuses, delivered_at)
     SELECT r.webhook_id, array_agg(t.id), array_agg(t.type), array_agg(t.created_at), array_agg(r.response_status), max(r.at)
       FROM unnest(${$(delivered.map((o) => o.attempt.webhook_id), "uuid")}, ${$(delivered.map((o) => o.attempt.event_id), "uuid")},
                   ${$(delivered.map((o) => o.responseStatus), "int")}, ${$(delivered.map(isoAt), "timestamptz")})
            AS r(webhook_id, event_id, response_status, at)
       JOIN taken_out t ON t.id = r.event_id
       JOIN webhooks w ON w.id = r.webhook_id
      GROUP BY r.webhook_id
     RETURNING webhook_id
   ), healed AS (
     UPDATE webhooks SET failing_since = NULL WHERE id IN (SELECT webhook_id FROM batched) AND failing_since IS NOT NULL
   )`);
  }
  return { ctes: ctes.join(", "), parameters };
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
