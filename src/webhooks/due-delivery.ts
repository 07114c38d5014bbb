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

/** Where the event relay hands the deliveries it queued, claimed for their first attempt (the DeliveryWorker). */
export interface DeliverySender {
  /** How long a claimed attempt may take before it counts as lost (and is made again). */
  readonly leaseMs: number;
  sendClaimed(deliveries: DueDelivery[]): void;
}
