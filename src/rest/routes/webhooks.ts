import { isPlainObject } from "../../domain/json.ts";
import { invalid } from "../../errors.ts";
import { EVENT_TYPES, eventTypeName, type EventType } from "../../events/change-event.ts";
import { Operation } from "../operation.ts";
import type { RestHandler, Router } from "../router.ts";

const WEBHOOK_FRAGMENT = /* GraphQL */ `
  fragment RestWebhook on Webhook { id url events description enabled disabledReason failingSince createdAt }
`;

interface WebhookView {
  id: string;
  url: string;
  /** GraphQL's enum names: MEMORY_CREATED, … */
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
}

const createWebhook = new Operation<{ createWebhook: { webhook: WebhookView; secret: string } }>(/* GraphQL */ `
  mutation RestCreateWebhook($url: String!, $events: [EventType!], $description: String) {
    createWebhook(url: $url, events: $events, description: $description) { webhook { ...RestWebhook } secret }
  }
  ${WEBHOOK_FRAGMENT}
`);

const listWebhooks = new Operation<{ webhooks: WebhookView[] }>(/* GraphQL */ `
  query RestListWebhooks { webhooks { ...RestWebhook } }
  ${WEBHOOK_FRAGMENT}
`);

const deleteWebhook = new Operation<{ deleteWebhook: boolean }>(/* GraphQL */ `
  mutation RestDeleteWebhook($id: ID!) { deleteWebhook(id: $id) }
`);

const byName = new Map(EVENT_TYPES.map((type) => [eventTypeName(type), type]));

/** The REST shape: snake_case, and the event types by their dotted names, as deliveries carry them. */
const restWebhook = (webhook: WebhookView) => ({
  id: webhook.id,
  url: webhook.url,
  events: webhook.events.map((name) => byName.get(name)),
  description: webhook.description,
  enabled: webhook.enabled,
  disabled_reason: webhook.disabledReason,
  failing_since: webhook.failingSince,
  created_at: webhook.createdAt,
});

function eventsOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid("events", "must be an array of event types");
  return value.map((type) => {
    if (typeof type !== "string" || !(EVENT_TYPES as readonly string[]).includes(type)) {
      throw invalid("events", `must name only ${EVENT_TYPES.join(", ")}`);
    }
    return eventTypeName(type as EventType);
  });
}

const FIELDS = new Set(["url", "events", "description"]);

/** POST /api/v1/webhooks */
export const create: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const raw = await body();
  if (!isPlainObject(raw)) throw invalid("body", "must be a JSON object");
  for (const key of Object.keys(raw)) if (!FIELDS.has(key)) throw invalid(key, "is not a field of a webhook");
  const { createWebhook: created } = await createWebhook.run(schema, context, {
    url: raw.url,
    events: eventsOf(raw.events),
    description: raw.description,
  });
  return { status: 201, body: { ...restWebhook(created.webhook), secret: created.secret } };
};

/** GET /api/v1/webhooks */
export const list: RestHandler = async ({ query, schema, context }) => {
  query.only([]);
  const { webhooks } = await listWebhooks.run(schema, context);
  return { status: 200, body: { webhooks: webhooks.map(restWebhook) } };
};

/** DELETE /api/v1/webhooks/{id} */
export const remove: RestHandler = async ({ params, query, schema, context }) => {
  query.only([]);
  await deleteWebhook.run(schema, context, { id: params.id });
  return { status: 200, body: { ok: true } };
};

export function addWebhookRoutes(router: Router): void {
  router.add("POST", "/api/v1/webhooks", create).add("GET", "/api/v1/webhooks", list).add("DELETE", "/api/v1/webhooks/:id", remove);
}
