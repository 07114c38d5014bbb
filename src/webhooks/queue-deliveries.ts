import type { Sql } from "../db/database.ts";
import type { ChangeEvent } from "../events/change-event.ts";

/**
 * The body of an event's deliveries. Given by the composition root (rest/webhook-body.ts): the payload shows
 * the object as the REST API does, a shape this layer does not know.
 */
export type WebhookBody = (event: ChangeEvent) => string;

/**
 * Queues a delivery of each event to each enabled endpoint of its user that wants its type, in the caller's
 * transaction (the one that takes the events from the outbox: an event leaves it with its deliveries queued).
 * Answers how many it queued.
 */
export async function queueDeliveries(sql: Sql, events: readonly ChangeEvent[], webhookBody: WebhookBody): Promise<number> {
  const users = [...new Set(events.map((event) => event.userId))];
  const endpoints = await sql.query<{ id: string; user_id: string; events: string[] }>(
    "SELECT id, user_id, events FROM webhooks WHERE enabled AND user_id = ANY($1::uuid[])",
    [users],
  );
  if (endpoints.length === 0) return 0;
  const rows = events.flatMap((event) => {
    const wanting = endpoints.filter((endpoint) => endpoint.user_id === event.userId && endpoint.events.includes(event.type));
    if (wanting.length === 0) return [];
    const payload = webhookBody(event);
    return wanting.map((endpoint) => ({ webhook_id: endpoint.id, event_id: event.id, event_type: event.type, payload }));
  });
  if (rows.length === 0) return 0;
  await sql.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload)
     SELECT webhook_id, event_id, event_type, payload
       FROM jsonb_to_recordset($1::jsonb) AS r(webhook_id uuid, event_id uuid, event_type text, payload text)`,
    [JSON.stringify(rows)],
  );
  return rows.length;
}
