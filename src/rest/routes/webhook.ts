import { isPlainObject } from "../../domain/json.ts";
import type { PageOf } from "../../domain/paging.ts";
import { DEFAULT_DELIVERY_LIMIT } from "../../domain/webhook.ts";
import { invalid } from "../../errors.ts";
import { EVENT_TYPES, eventTypeName, type EventType } from "../../events/change-event.ts";
import { limitParam, offsetParam, pageSuccess, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { Operation } from "../operation.ts";
import { pageSelection, restPage } from "../page-wire.ts";
import type { RestHandler, RestRequest, Router } from "../router.ts";
import {
  DELIVERY_FRAGMENT,
  restDelivery,
  restWebhook,
  WEBHOOK_FRAGMENT,
  type DeliveryView,
  type WebhookView,
} from "../webhook-wire.ts";

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

const listDeliveries = new Operation<{ webhookDeliveries: PageOf<DeliveryView> }>(/* GraphQL */ `
  query RestListWebhookDeliveries($id: ID!, $status: WebhookDeliveryStatus, $limit: Int, $offset: Int) {
    webhookDeliveries(webhookId: $id, status: $status, limit: $limit, offset: $offset) { ${pageSelection("RestWebhookDelivery")} }
  }
  ${DELIVERY_FRAGMENT}
`);

const enableWebhook = new Operation<{ enableWebhook: WebhookView }>(/* GraphQL */ `
  mutation RestEnableWebhook($id: ID!) { enableWebhook(id: $id) { ...RestWebhook } }
  ${WEBHOOK_FRAGMENT}
`);

const rotateSecret = new Operation<{ rotateWebhookSecret: { webhook: WebhookView; secret: string } }>(/* GraphQL */ `
  mutation RestRotateWebhookSecret($id: ID!) { rotateWebhookSecret(id: $id) { webhook { ...RestWebhook } secret } }
  ${WEBHOOK_FRAGMENT}
`);

const deleteWebhook = new Operation<{ deleteWebhook: boolean }>(/* GraphQL */ `
  mutation RestDeleteWebhook($id: ID!) { deleteWebhook(id: $id) }
`);

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

const EXAMPLE_WEBHOOK = {
  id: "0190a1b2-1111-7e5f-8a9b-0c1d2e3f4a5b",
  url: "https://example.com/hooks/memory",
  events: [...EVENT_TYPES],
  description: "CRM sync",
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_until: null,
  created_at: "2026-01-31T09:00:00.000Z",
};

const createDoc: RouteDoc = {
  operationId: "createWebhook",
  tag: "Webhooks",
  summary: "Register a webhook endpoint",
  description:
    "Each event of yours is POSTed to the URL as JSON {type, timestamp, data}, with the headers webhook-id, " +
    "webhook-timestamp and webhook-signature of the Standard Webhooks specification; a failed delivery is retried " +
    "with exponential backoff. The secret that verifies the signatures is in this answer only.",
  body: {
    schema: ref("schemas", "WebhookCreate"),
    examples: {
      memories: {
        summary: "Memory events only",
        value: { url: "https://example.com/hooks/memory", events: ["memory.created", "memory.deleted"] },
      },
    },
  },
  success: {
    status: 201,
    description: "The webhook, with its signing secret.",
    schema: ref("schemas", "WebhookCreated"),
    example: { ...EXAMPLE_WEBHOOK, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
  },
  errors: {
    VALIDATION_ERROR: {
      when: "The URL is not https, or reaches a loopback, private, link-local or metadata address.",
      example: "url must not reach a loopback, private, link-local or metadata address",
    },
  },
};

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

const listDoc: RouteDoc = {
  operationId: "listWebhooks",
  tag: "Webhooks",
  summary: "List webhook endpoints",
  description: "Your endpoints, oldest first, without their secrets.",
  success: { status: 200, description: "Your webhooks.", schema: ref("schemas", "WebhookList"), example: { webhooks: [EXAMPLE_WEBHOOK] } },
};

/** GET /api/v1/webhooks */
export const list: RestHandler = async ({ query, schema, context }) => {
  query.only([]);
  const { webhooks } = await listWebhooks.run(schema, context);
  return { status: 200, body: { webhooks: webhooks.map(restWebhook) } };
};

const WEBHOOK_ID = { id: { description: "The webhook's id.", example: EXAMPLE_WEBHOOK.id } };
const NOT_FOUND = { NOT_FOUND: { when: "No webhook with this id is yours.", example: "Webhook not found" } };

const EXAMPLE_DELIVERY = {
  id: "0190a1b2-2222-7e5f-8a9b-0c1d2e3f4a5b",
  event_id: "0190a1b2-3333-7e5f-8a9b-0c1d2e3f4a5b",
  event_type: "memory.created",
  status: "delivered",
  attempts: 1,
  next_attempt_at: null,
  last_attempt_at: "2026-01-31T09:30:00.000Z",
  response_status: 204,
  last_error: null,
  created_at: "2026-01-31T09:30:00.000Z",
  delivered_at: "2026-01-31T09:30:00.000Z",
};

const deliveriesDoc: RouteDoc = {
  operationId: "listWebhookDeliveries",
  tag: "Webhooks",
  summary: "List a webhook's deliveries",
  description: "The events sent (or to be sent) to one of your endpoints, newest first; kept 7 days once settled.",
  pathParams: WEBHOOK_ID,
  query: [
    limitParam(DEFAULT_DELIVERY_LIMIT, "deliveries"),
    offsetParam("deliveries"),
    { name: "status", in: "query", description: "Only deliveries in this state.", schema: ref("schemas", "WebhookDeliveryStatus") },
  ],
  success: pageSuccess("A page of deliveries.", "WebhookDeliveryList", "deliveries", EXAMPLE_DELIVERY, DEFAULT_DELIVERY_LIMIT),
  errors: NOT_FOUND,
};

/** GET /api/v1/webhooks/{id}/deliveries */
export const deliveries: RestHandler = async ({ params, query, schema, context }) => {
  query.only(["limit", "offset", "status"]);
  const { webhookDeliveries: page } = await listDeliveries.run(schema, context, {
    id: params.id,
    status: query.string("status"),
    limit: query.int("limit"),
    offset: query.int("offset"),
  });
  return { status: 200, body: restPage("deliveries", page, restDelivery) };
};

const enableDoc: RouteDoc = {
  operationId: "enableWebhook",
  tag: "Webhooks",
  summary: "Enable a disabled webhook endpoint",
  description:
    "Sends to it again from the next event on; deliveries that failed while it was disabled stay failed. " +
    "Its failing streak starts afresh. An enabled endpoint is answered as it is.",
  pathParams: WEBHOOK_ID,
  success: { status: 200, description: "The webhook, enabled.", schema: ref("schemas", "Webhook"), example: EXAMPLE_WEBHOOK },
  errors: NOT_FOUND,
};

/** An action on a webhook takes nothing: no body, or an empty JSON object (as clients that always send one do). */
async function nothingIn(body: RestRequest["body"]): Promise<void> {
  const raw = await body({ optional: true });
  if (raw === undefined) return;
  if (!isPlainObject(raw)) throw invalid("body", "must be empty or an empty JSON object");
  const [field] = Object.keys(raw);
  if (field !== undefined) throw invalid(field, "is not a field of this request, which takes none");
}

/** POST /api/v1/webhooks/{id}/enable */
export const enable: RestHandler = async ({ params, query, body, schema, context }) => {
  query.only([]);
  await nothingIn(body);
  const { enableWebhook: webhook } = await enableWebhook.run(schema, context, { id: params.id });
  return { status: 200, body: restWebhook(webhook) };
};

const rotateDoc: RouteDoc = {
  operationId: "rotateWebhookSecret",
  tag: "Webhooks",
  summary: "Rotate a webhook's signing secret",
  description:
    "A new secret signs every delivery from the next one on. Until previous_secret_until (the server's " +
    "WEBHOOK_SECRET_OVERLAP_HOURS, 24 by default) each delivery's webhook-signature carries a signature by the old " +
    "secret as well, space-separated, so that the receiver can switch to the new one meanwhile.",
  pathParams: WEBHOOK_ID,
  success: {
    status: 200,
    description: "The webhook, with its new signing secret: shown this once.",
    schema: ref("schemas", "WebhookCreated"),
    example: { ...EXAMPLE_WEBHOOK, previous_secret_until: "2026-02-01T09:00:00.000Z", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
  },
  errors: NOT_FOUND,
};

/** POST /api/v1/webhooks/{id}/rotate-secret */
export const rotate: RestHandler = async ({ params, query, body, schema, context }) => {
  query.only([]);
  await nothingIn(body);
  const { rotateWebhookSecret: rotated } = await rotateSecret.run(schema, context, { id: params.id });
  return { status: 200, body: { ...restWebhook(rotated.webhook), secret: rotated.secret } };
};

const removeDoc: RouteDoc = {
  operationId: "deleteWebhook",
  tag: "Webhooks",
  summary: "Delete a webhook endpoint",
  description: "Nothing more is sent to it, including deliveries still being retried.",
  pathParams: WEBHOOK_ID,
  success: { status: 200, description: "Deleted.", schema: ref("schemas", "Ok"), example: { ok: true } },
  errors: NOT_FOUND,
};

/** DELETE /api/v1/webhooks/{id} */
export const remove: RestHandler = async ({ params, query, schema, context }) => {
  query.only([]);
  await deleteWebhook.run(schema, context, { id: params.id });
  return { status: 200, body: { ok: true } };
};

export function addWebhookRoutes(router: Router): void {
  router
    .add("POST", "/api/v1/webhooks", create, { doc: createDoc })
    .add("GET", "/api/v1/webhooks", list, { doc: listDoc })
    .add("DELETE", "/api/v1/webhooks/:id", remove, { doc: removeDoc })
    .add("GET", "/api/v1/webhooks/:id/deliveries", deliveries, { doc: deliveriesDoc })
    .add("POST", "/api/v1/webhooks/:id/enable", enable, { doc: enableDoc })
    .add("POST", "/api/v1/webhooks/:id/rotate-secret", rotate, { doc: rotateDoc });
}
