import type { Sql } from "../db/database.ts";
import type { ChangeEvent } from "../events/change-event.ts";
import { ENDPOINT_COLUMNS, type ClaimedRound, type FirstAttempt } from "./due-delivery.ts";

/** An event no instance is making attempts for: never claimed, or its claim lapsed. */
export const UNCLAIMED = "(claimed_until IS NULL OR claimed_until < now())";

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
  /** False when an earlier claim of it lapsed: it was published then. */
  unpublished: boolean;
}

/** What `takeOut` took: the events now this instance's to publish, and the first attempts of their deliveries. */
export interface TakenOut {
  events: ChangeEvent[];
  round: ClaimedRound;
}

interface TakenRow extends Omit<FirstAttempt, "payload" | "attempts" | "id" | "event_id" | "event_type"> {
  seq: string | bigint;
  id: string | null;
}

/**
 * Takes `read` (those another instance has not taken meanwhile: FOR UPDATE SKIP LOCKED) in one statement: an
 * event no endpoint wants leaves the outbox; one that an endpoint wants is claimed for `leaseMs` instead, and
 * stays there, the durable mark of its deliveries, until their first attempts' outcomes are written
 * (recordFirstAttempts). If this instance dies first, the claim lapses and the attempts are made again, under
 * the same delivery ids (made from the event's and the endpoint's). Each body is made once per event, whatever
 * the number of endpoints.
 */
export async function takeOut(sql: Sql, read: readonly OutboxEvent[], webhookBody: WebhookBody, leaseMs: number): Promise<TakenOut> {
  const [wanted, unwanted] = [read.filter((e) => e.wanted), read.filter((e) => !e.wanted)];
  const rows = await sql.query<TakenRow>(
    `WITH dropped AS (
       DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE seq = ANY($1::bigint[]) AND ${UNCLAIMED} FOR UPDATE SKIP LOCKED)
       RETURNING seq
     ), claimed AS (
       UPDATE events SET claimed_until = now() + $3 * interval '1 millisecond'
        WHERE seq IN (SELECT seq FROM events WHERE seq = ANY($2::bigint[]) AND ${UNCLAIMED} FOR UPDATE SKIP LOCKED)
       RETURNING seq, id, user_id, type
     )
     SELECT seq, NULL::uuid AS id, NULL::uuid AS webhook_id, NULL AS url, NULL AS secret, NULL AS previous_secret FROM dropped
     UNION ALL
     SELECT seq, NULL::uuid, NULL::uuid, NULL, NULL, NULL FROM claimed
     UNION ALL
     SELECT c.seq, md5(c.id::text || w.id::text)::uuid, ${ENDPOINT_COLUMNS}
       FROM claimed c JOIN webhooks w ON w.user_id = c.user_id AND w.enabled AND c.type = ANY(w.events)`,
    [unwanted.map(({ seq }) => seq), wanted.map(({ seq }) => seq), leaseMs],
  );
  const taken = new Set(rows.flatMap((row) => (row.id === null ? [String(row.seq)] : [])));
  const bySeq = new Map(wanted.map((e) => [e.seq, e.event]));
  const payloads = new Map<string, string>();
  const attempts = rows.flatMap(({ seq, id, ...endpoint }): FirstAttempt[] => {
    const event = id === null ? undefined : bySeq.get(String(seq));
    if (!event || id === null) return [];
    const payload = payloads.get(event.id) ?? webhookBody(event);
    payloads.set(event.id, payload);
    return [{ ...endpoint, id, attempts: 1, payload, event_id: event.id, event_type: event.type }];
  });
  return {
    events: read.flatMap(({ seq, event, unpublished }) => (taken.has(seq) && unpublished ? [event] : [])),
    round: { seqs: wanted.flatMap(({ seq }) => (taken.has(seq) ? [seq] : [])), attempts },
  };
}
