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

/** The endpoint's columns of a DueDelivery, from `webhooks w`. */
export const ENDPOINT_COLUMNS =
  "w.id AS webhook_id, w.url, w.secret, CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret";

/** An attempt that succeeded, not yet recorded. */
export interface Delivered {
  id: string;
  status: number;
}

/**
 * Records the successful attempts whose ids and statuses are the parameters `ids` (uuid[]) and `statuses`
 * (int[]), and ends their endpoints' failing streaks: the opening of a WITH, for the statement that follows.
 */
export const recordDelivered = (ids: string, statuses: string): string =>
  `WITH delivered AS (
     UPDATE webhook_deliveries d SET status = 'delivered', delivered_at = now(), response_status = r.status, last_error = NULL
       FROM unnest(${ids}::uuid[], ${statuses}::int[]) AS r(id, status)
      WHERE d.id = r.id
     RETURNING d.webhook_id
   ), healed AS (
     UPDATE webhooks SET failing_since = NULL WHERE id IN (SELECT webhook_id FROM delivered) AND failing_since IS NOT NULL
   )`;

/**
 * Where the event relay hands the deliveries it queued, claimed for their first attempt (the DeliveryWorker),
 * and from where it takes their successes to record in its next statement.
 */
export interface DeliverySender {
  /** How long a claimed attempt may take before it counts as lost (and is made again). */
  readonly leaseMs: number;
  sendClaimed(deliveries: DueDelivery[]): void;
  /** Called whenever first attempts have succeeded, for the relay to record them (`takeDelivered`). */
  onDelivered(listener: () => void): void;
  /** The successful first attempts not recorded yet, now the caller's to record. */
  takeDelivered(): Delivered[];
  /** Those the caller could not record after all: recorded later. */
  returnDelivered(delivered: Delivered[]): void;
}
