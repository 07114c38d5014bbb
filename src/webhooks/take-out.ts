import { createHash } from "node:crypto";
import type { Sql } from "../db/database.ts";
import { uuidOfHex } from "../domain/ids.ts";
import type { JsonObject } from "../domain/json.ts";
import type { ChangeEvent, EventType } from "../events/change-event.ts";
import type { HeldClaims } from "./held-claims.ts";
import { ENDPOINT_COLUMNS, firstAttemptsRecorded, type ClaimedRound, type DueDelivery, type FirstAttempt, type FirstAttempts } from "./due-delivery.ts";

/**
 * The body of an event's deliveries. Given by the composition root (rest/webhook-body.ts): the payload shows
 * the object as the REST API does, a shape this layer does not know.
 */
export type WebhookBody = (event: ChangeEvent) => string;

/** What `takeOut` took: the events now this instance's to publish, and the first attempts of their deliveries. */
export interface TakenOut {
  /** How many events it took (published now or earlier). */
  found: number;
  events: ChangeEvent[];
  round: ClaimedRound;
}

/** An event taken. */
interface EventRow {
  seq: string | bigint;
  id: string;
  type: EventType;
  user_id: string;
  object_id: string;
  thread_id: string | null;
  previous_thread_id: string | null;
  data: JsonObject | null;
  created_at: Date | string;
  /** False when an earlier claim of it lapsed: it was published then. */
  unpublished: boolean;
  /** Kept in the outbox for its deliveries' first attempts (rather than taken out). */
  claimed: boolean;
  webhook_id: null;
}

/** An enabled endpoint of a user whose events were claimed, with the event types it wants. */
interface EndpointRow extends Omit<DueDelivery, "id" | "payload" | "attempts"> {
  user_id: string;
  events: string[];
}

const isEventRow = (row: EventRow | EndpointRow): row is EventRow => row.webhook_id === null;

/**
 * A delivery's id, the same at every attempt (its `webhook-id`): made from its event's and its endpoint's, so that
 * a claim that lapsed is attempted again under it. The deliveries' listing makes it alike, in SQL, from the batches
 * of successful first attempts (domain/webhook-deliveries.ts).
 */
export const deliveryId = (eventId: string, webhookId: string): string =>
  uuidOfHex(createHash("md5").update(eventId + webhookId).digest("hex"));

// events no instance is making attempts for: never claimed, or their claim lapsed
const UNCLAIMED = "(e.claimed_until IS NULL OR e.claimed_until < now())";

// taken by the rounds of every instance on one PostgreSQL database in turn (migrate.ts' lock is 72707369)
const ROUND_LOCK = 72707370;

/**
 * On PostgreSQL, the event's user has no earlier event whose first attempts another instance is making (`claimant`:
 * this instance's id, a parameter): an endpoint is sent an object's events in commit order by the instance that
 * makes them (OrderedAttempts), so a user's events stay with that instance until its claims are recorded or lapse.
 * Another instance took the later ones at its next round (an outside probe: thread.deleted delivered before
 * thread.created, with every write of the thread made through one instance).
 */
const noEarlierClaimElsewhere = (claimant: string) =>
  `NOT EXISTS (SELECT 1 FROM events o WHERE o.user_id = e.user_id AND o.seq < e.seq AND o.claimed_until >= now() AND o.claimed_by IS DISTINCT FROM ${claimant}::uuid)`;

/**
 * One round of the event relay, in one statement (on the embedded database the API's writes wait for each): the
 * outbox's first `limit` events that no instance is making attempts for (another instance's are skipped: FOR
 * UPDATE SKIP LOCKED) are taken. An event that no enabled endpoint of its user wants leaves the outbox; one that
 * an endpoint wants is claimed for `leaseMs` instead, in its row or in `held` when given (HeldClaims), and stays
 * there, the durable mark of its deliveries, until their first attempts' outcomes are written (`recordable`, the
 * rounds attempted since, in the same statement). If this instance dies first, the claim lapses and the attempts
 * are made again, under the same delivery ids (deliveryId). Each body is made once per event, whatever the number
 * of endpoints, and each endpoint is read once per round rather than once per event and endpoint. On PostgreSQL the
 * rounds of all instances take turns (an advisory lock, taken before the statement reads, so that it sees the claims
 * of the round before), and a user's events wait while another instance makes attempts for earlier ones.
 */
export async function takeOut(
  sql: Sql,
  recordable: FirstAttempts,
  settings: { limit: number; leaseMs: number; webhookBody: WebhookBody; held: HeldClaims | undefined; claimant: string },
): Promise<TakenOut> {
  const { webhookBody, held } = settings;
  const recording = recordable.seqs.length > 0 ? firstAttemptsRecorded(recordable, 3) : undefined;
  const recordingParameters = recording?.parameters ?? [];
  // held claims: the events after $2 and those whose claim lapsed (the last parameter), and no other process can
  // lock a row
  const scope = held?.scope();
  const lapsedSeqs = scope?.lapsed.length ? [scope.lapsed] : [];
  const lapsed = lapsedSeqs.length ? `OR e.seq = ANY($${3 + recordingParameters.length}::bigint[])` : "";
  const claimantParam = `$${3 + recordingParameters.length + lapsedSeqs.length}`;
  const claiming = held
    ? `SELECT e.seq, e.id, e.type, e.user_id, e.object_id, e.thread_id, e.previous_thread_id, e.data, e.created_at, p.unpublished, true AS claimed
         FROM events e JOIN picked p ON e.seq = p.seq WHERE p.wanted`
    : `UPDATE events e SET claimed_until = now() + $2 * interval '1 millisecond', claimed_by = ${claimantParam}::uuid FROM picked p WHERE e.seq = p.seq AND p.wanted
       RETURNING e.seq, e.id, e.type, e.user_id, e.object_id, e.thread_id, e.previous_thread_id, e.data, e.created_at, p.unpublished, true AS claimed`;
  const statement = `WITH ${recording ? `${recording.ctes},` : ""} picked AS (
       SELECT e.seq, e.claimed_until IS NULL AS unpublished,
              EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = e.user_id AND w.enabled AND e.type = ANY(w.events)) AS wanted
         FROM events e
        WHERE ${UNCLAIMED} ${held ? `AND (e.seq > $2::bigint ${lapsed})` : `AND ${noEarlierClaimElsewhere(claimantParam)}`} ${recording ? "AND e.seq <> ALL($3::bigint[])" : ""}
        ORDER BY e.seq LIMIT $1 ${held ? "" : "FOR UPDATE OF e SKIP LOCKED"}
     ), dropped AS (
       DELETE FROM events e USING picked p WHERE e.seq = p.seq AND NOT p.wanted
       RETURNING e.seq, e.id, e.type, e.user_id, e.object_id, e.thread_id, e.previous_thread_id, e.data, e.created_at, p.unpublished, false AS claimed
     ), claimed AS (
       ${claiming}
     ), taken AS (
       SELECT * FROM dropped UNION ALL SELECT * FROM claimed
     )
     SELECT t.*, NULL::uuid AS webhook_id, NULL AS url, NULL AS secret, NULL AS previous_secret, NULL::text[] AS events FROM taken t
     UNION ALL
     SELECT NULL, NULL, NULL, w.user_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ${ENDPOINT_COLUMNS}, w.events
       FROM webhooks w WHERE w.enabled AND w.user_id IN (SELECT user_id FROM claimed)`;
  const parameters = [settings.limit, scope ? scope.after : settings.leaseMs, ...recordingParameters, ...lapsedSeqs];
  const rows = held
    ? await sql.query<EventRow | EndpointRow>(statement, parameters)
    : await sql.transaction(async (tx) => {
        await tx.query("SELECT pg_advisory_xact_lock($1)", [ROUND_LOCK]);
        return tx.query<EventRow | EndpointRow>(statement, [...parameters, settings.claimant]);
      });
  const taken = rows.filter(isEventRow).sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
  const endpoints = new Map<string, EndpointRow[]>();
  for (const row of rows) if (!isEventRow(row)) endpoints.set(row.user_id, [...(endpoints.get(row.user_id) ?? []), row]);
  // in commit order: the sender begins each endpoint's attempts for one object in it
  const attempts = taken.flatMap((row): FirstAttempt[] => {
    if (!row.claimed) return [];
    const event = eventOf(row);
    const wanting = (endpoints.get(row.user_id) ?? []).filter((endpoint) => endpoint.events.includes(row.type));
    const payload = wanting.length ? webhookBody(event) : "";
    return wanting.map(({ webhook_id, url, secret, previous_secret }) => ({
      id: deliveryId(row.id, webhook_id),
      webhook_id,
      url,
      secret,
      previous_secret,
      attempts: 1,
      payload,
      event_id: row.id,
      after: orderedBy(event).map((key) => `${webhook_id}/${key}`),
    }));
  });
  const published = taken.filter((row) => row.unpublished && !held?.wasTaken(String(row.seq)));
  const seqs = taken.flatMap((row) => (row.claimed ? [String(row.seq)] : []));
  held?.release(recordable.seqs);
  held?.took(taken.map((row) => String(row.seq)), seqs);
  return { found: taken.length, events: published.map(eventOf), round: { seqs, attempts } };
}

/**
 * What an event's deliveries to one endpoint wait for (OrderedAttempts): the earlier ones about the same object
 * and, for a memory, about its thread and the thread it left, so that an endpoint hears a thread's changes, its
 * memories' among them, in commit order (a thread deleted with its memories after their memory.deleted). Others
 * go at once.
 */
function orderedBy(event: ChangeEvent): string[] {
  return [event.objectId, event.threadId, event.previousThreadId].filter((key): key is string => typeof key === "string");
}

function eventOf(row: EventRow): ChangeEvent {
  return {
    id: row.id,
    type: row.type,
    userId: row.user_id,
    objectId: row.object_id,
    threadId: row.thread_id,
    previousThreadId: row.previous_thread_id,
    timestamp: new Date(row.created_at).toISOString(),
    data: row.data,
  };
}
