import { EVENT_TYPES, eventTypeName } from "../events/change-event.ts";
import type { Webhook } from "../generated/prisma/client.ts";
import { objectSchema, timestamp, uuid } from "./openapi/schema-parts.ts";
import { ref } from "./openapi/types.ts";
import { fragment, snakeCasedPick, type GraphQLView } from "./wire-shape.ts";

/** The webhook fields every REST answer carries, by their GraphQL names (never the secret). */
const WEBHOOK_FIELDS = ["id", "url", "events", "description", "enabled", "disabledReason", "failingSince", "createdAt"] as const;

export const WEBHOOK_FRAGMENT = fragment("RestWebhook", "Webhook", WEBHOOK_FIELDS);

/** A webhook as the RestWebhook fragment returns it; `events` by GraphQL's enum names (MEMORY_CREATED, …). */
export type WebhookView = GraphQLView<Webhook, (typeof WEBHOOK_FIELDS)[number]>;

const byName = new Map(EVENT_TYPES.map((type) => [eventTypeName(type), type]));

/** The REST shape: snake_case, and the event types by their dotted names, as deliveries carry them. */
export function restWebhook(webhook: WebhookView) {
  return { ...snakeCasedPick(webhook, WEBHOOK_FIELDS), events: webhook.events.map((name) => byName.get(name)) };
}

export const WEBHOOK_SCHEMA = objectSchema<ReturnType<typeof restWebhook>>(
  "An endpoint of yours that receives your events, signed as Standard Webhooks has it.",
  {
    id: uuid("Assigned by the service."),
    url: { type: "string" },
    events: { type: "array", items: ref("schemas", "EventType") },
    description: { type: ["string", "null"] },
    enabled: { type: "boolean", description: "False once every attempt has failed for too long." },
    disabled_reason: { type: ["string", "null"] },
    failing_since: { ...timestamp("The first failed attempt since the last success."), type: ["string", "null"] },
    created_at: timestamp("When it was created."),
  },
);
