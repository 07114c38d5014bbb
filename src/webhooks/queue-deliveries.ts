import type { Sql } from "../db/database.ts";
import type { ChangeEvent } from "../events/change-event.ts";
import { ENDPOINT_COLUMNS, type DueDelivery } from "./due-delivery.ts";

/**
 * The body of an event's deliveries. Given by the composition root (rest/webhook-body.ts): the payload shows
 * the object as the REST API does, a shape this layer does not know.
 */
export type WebhookBody = (event: ChangeEvent) => string;

/** An event read from the outbox, with whether an enabled endpoint of its user wanted its type when it was read. */
export interface OutboxEvent {
  seq: string;
  event: ChangeEvent;
  wanted: boolean;
}

/** What `takeOut` took: the events now this instance's to publish, and their deliveries, claimed for a first attempt. */
export interface TakenOut {
  events: ChangeEvent[];
  deliveries: DueDelivery[];
}

interface TakenRow extends Omit<DueDelivery, "payload" | "attempts" | "id"> {
  event_id: string;
  id: string | null;
}

/**
 * Takes `read` out of the outbox (those another instance has not taken meanwhile: FOR UPDATE SKIP LOCKED) and
 * queues a delivery of each to each enabled endpoint of its user that wants its type, in one statement: an
 * event never leaves the outbox without its deliveries, and the round costs the database one statement (on the
 * embedded database, the API's writes wait for each). The deliveries are queued claimed, their first attempt
 * counted and leased for `leaseMs`, for the caller to send at once; the delivery worker makes that attempt
 * again if the lease runs out unrecorded. Each body is made once per event, whatever the number of endpoints.
 */
export async function takeOut(sql: Sql, read: readonly OutboxEvent[], webhookBody: WebhookBody, leaseMs: number): Promise<TakenOut> {
  const payloads = new Map(read.flatMap(({ event, wanted }) => (wanted ? [[event.id, webhookBody(event)] as const] : [])));
  const rows = await sql.query<TakenRow>(
    `WITH taken AS (
       DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE seq = ANY($1::bigint[]) FOR UPDATE SKIP LOCKED)
       RETURNING id, user_id, type
     ), queued AS (
       INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, attempts, last_attempt_at, next_attempt_at)
       SELECT w.id, t.id, t.type, p.payload, 1, now(), now() + $4 * interval '1 millisecond'
         FROM taken t
         JOIN unnest($2::uuid[], $3::text[]) AS p(event_id, payload) ON p.event_id = t.id
         JOIN webhooks w ON w.user_id = t.user_id AND w.enabled AND t.type = ANY(w.events)
       RETURNING id, webhook_id, event_id
     )
     SELECT t.id AS event_id, NULL::uuid AS id, NULL::uuid AS webhook_id, NULL AS url, NULL AS secret, NULL AS previous_secret
       FROM taken t
     UNION ALL
     SELECT q.event_id, q.id, ${ENDPOINT_COLUMNS} FROM queued q JOIN webhooks w ON w.id = q.webhook_id`,
    [read.map(({ seq }) => seq), [...payloads.keys()], [...payloads.values()], leaseMs],
  );
  const taken = new Set(rows.flatMap((row) => (row.id === null ? [row.event_id] : [])));
  return {
    events: read.flatMap(({ event }) => (taken.has(event.id) ? [event] : [])),
    deliveries: rows.flatMap(({ id, event_id, ...endpoint }) =>
      id === null ? [] : [{ ...endpoint, id, attempts: 1, payload: payloads.get(event_id)! }],
    ),
  };
}
