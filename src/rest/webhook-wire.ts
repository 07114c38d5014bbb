import { EVENT_TYPES, eventTypeName } from "../events/change-event.ts";
import type { Webhook, WebhookDelivery } from "../generated/prisma/client.ts";
import { objectSchema, timestamp, uuid } from "./openapi/schema-parts.ts";
import { ref } from "./openapi/types.ts";
import { fragment, snakeCasedPick, type GraphQLView } from "./wire-shape.ts";

/** The webhook fields every REST answer carries, by their GraphQL names (never the secret). */
// prettier-ignore
const WEBHOOK_FIELDS = [
  "id", "url", "events", "description", "createdAt",
  // its health, and its secrets' rotation
  "enabled", "disabledReason", "failingSince", "previousSecretUntil",
] as const;

export const WEBHOOK_FRAGMENT = fragment("RestWebhook", "Webhook", WEBHOOK_FIELDS);

/** A webhook as the RestWebhook fragment returns it; `events` by GraphQL's enum names (MEMORY_CREATED, …). */
export type WebhookView = GraphQLView<Webhook, (typeof WEBHOOK_FIELDS)[number]>;

const byName = new Map(EVENT_TYPES.map((type) => [eventTypeName(type), type]));

/** The REST shape: snake_case, and the event types by their dotted names, as deliveries carry them. */
export function restWebhook(webhook: WebhookView) {
  return { ...snakeCasedPick(webhook, WEBHOOK_FIELDS), events: webhook.events.map((name) => byName.get(name)) };
}

const nullableTime = (description: string) => ({ ...timestamp(description), type: ["string", "null"] as ["string", "null"] });

export const WEBHOOK_SCHEMA = objectSchema<ReturnType<typeof restWebhook>>(
  "An endpoint of yours that receives your events, signed as Standard Webhooks has it.",
  {
    id: uuid("Assigned by the service."),
    url: { type: "string" },
    events: { type: "array", items: ref("schemas", "EventType") },
    description: { type: ["string", "null"] },
    enabled: { type: "boolean", description: "False once every attempt has failed for too long." },
    disabled_reason: { type: ["string", "null"] },
    failing_since: nullableTime("The first failed attempt since the last success."),
    previous_secret_until: nullableTime("Until when deliveries are signed with the secret before the last rotation as well."),
    created_at: timestamp("When it was created."),
  },
);

/** The delivery fields of a REST answer, by their GraphQL names: all of them. */
// prettier-ignore
const DELIVERY_FIELDS = [
  "id", "eventId", "eventType", "status", "createdAt", "deliveredAt",
  // its attempts so far
  "attempts", "nextAttemptAt", "lastAttemptAt", "responseStatus", "lastError",
] as const;

export const DELIVERY_FRAGMENT = fragment("RestWebhookDelivery", "WebhookDelivery", DELIVERY_FIELDS);

/** A delivery as the RestWebhookDelivery fragment returns it; `eventType` by its GraphQL enum name. */
export type DeliveryView = GraphQLView<WebhookDelivery, (typeof DELIVERY_FIELDS)[number]>;

export function restDelivery(delivery: DeliveryView) {
  return { ...snakeCasedPick(delivery, DELIVERY_FIELDS), event_type: byName.get(delivery.eventType) };
}

export const DELIVERY_SCHEMA = objectSchema<ReturnType<typeof restDelivery>>("One event sent (or to be sent) to one endpoint.", {
  id: uuid("Sent as webhook-id, the same at every attempt."),
  event_id: uuid("The event's id."),
  event_type: ref("schemas", "EventType"),
  status: ref("schemas", "WebhookDeliveryStatus"),
  attempts: { type: "integer", minimum: 0 },
  next_attempt_at: nullableTime("When a pending delivery is next tried."),
  last_attempt_at: nullableTime("When it was last tried."),
  response_status: { type: ["integer", "null"], description: "The HTTP status of the last attempt." },
  last_error: { type: ["string", "null"] },
  created_at: timestamp("When it was queued."),
  delivered_at: nullableTime("When an attempt succeeded."),
});
