import type { Sql } from "../db/database.ts";
import type { WebhookDelivery, WebhookDeliveryStatus } from "../generated/prisma/client.ts";
import type { Page } from "./paging.ts";

/**
 * An endpoint's deliveries in the status asked for (any when null): those retried or failed, a row each in
 * webhook_deliveries, and those whose first attempt succeeded, unnested from webhook_delivery_batches (their id is
 * the one they were sent under, made from the event's and the endpoint's). Parameters: $1 the endpoint, $2 the
 * status.
 */
const DELIVERIES = `
  SELECT id, event_id, event_type, status::text, attempts, next_attempt_at, last_attempt_at, response_status,
         last_error, created_at, delivered_at
    FROM webhook_deliveries
   WHERE webhook_id = $1::uuid AND ($2::text IS NULL OR status::text = $2)
  UNION ALL
  SELECT md5(e.event_id::text || b.webhook_id::text)::uuid, e.event_id, e.event_type, 'delivered', 1, b.delivered_at,
         b.delivered_at, e.response_status, NULL, e.created_at, b.delivered_at
    FROM webhook_delivery_batches b,
         unnest(b.event_ids, b.event_types, b.event_created_ats, b.response_statuses) AS e(event_id, event_type, created_at, response_status)
   WHERE b.webhook_id = $1::uuid AND ($2::text IS NULL OR $2 = 'delivered')`;

const COUNT = `
  SELECT (SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1::uuid AND ($2::text IS NULL OR status::text = $2))
       + (SELECT coalesce(sum(cardinality(event_ids)), 0) FROM webhook_delivery_batches
           WHERE webhook_id = $1::uuid AND ($2::text IS NULL OR $2 = 'delivered')) AS total`;

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | string;
  last_attempt_at: Date | string | null;
  response_status: number | null;
  last_error: string | null;
  created_at: Date | string;
  delivered_at: Date | string | null;
}

const date = (value: Date | string) => new Date(value);

/** A page of one endpoint's deliveries, newest first, and how many there are in all. */
export async function deliveriesPage(
  sql: Sql,
  webhookId: string,
  status: WebhookDeliveryStatus | null,
  page: Page,
): Promise<{ items: WebhookDelivery[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql.query<DeliveryRow>(`${DELIVERIES} ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, [webhookId, status, page.limit, page.offset]),
    sql.query<{ total: string | number | bigint }>(COUNT, [webhookId, status]),
  ]);
  const items = rows.map(
    (row): WebhookDelivery => ({
      id: row.id,
      webhookId,
      eventId: row.event_id,
      eventType: row.event_type,
      // the body is the sender's alone, and never listed
      payload: null,
      status: row.status,
      attempts: row.attempts,
      nextAttemptAt: date(row.next_attempt_at),
      lastAttemptAt: row.last_attempt_at === null ? null : date(row.last_attempt_at),
      responseStatus: row.response_status,
      lastError: row.last_error,
      createdAt: date(row.created_at),
      deliveredAt: row.delivered_at === null ? null : date(row.delivered_at),
    }),
  );
  return { items, total: Number(count?.total ?? 0) };
}
