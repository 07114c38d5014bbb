import { EVENT_TYPES } from "../../events/change-event.ts";
import type { RouteDocs } from "./route-doc.ts";
import { ref } from "./types.ts";

const EXAMPLE_WEBHOOK = {
  id: "0190a1b2-1111-7e5f-8a9b-0c1d2e3f4a5b",
  url: "https://example.com/hooks/memory",
  events: [...EVENT_TYPES],
  description: "CRM sync",
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  created_at: "2026-01-31T09:00:00.000Z",
};

/** The webhook routes (src/rest/routes/webhooks.ts). */
export const webhookRoutes: RouteDocs = {
  "POST /api/v1/webhooks": {
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
  },
  "GET /api/v1/webhooks": {
    operationId: "listWebhooks",
    tag: "Webhooks",
    summary: "List webhook endpoints",
    description: "Your endpoints, oldest first, without their secrets.",
    success: { status: 200, description: "Your webhooks.", schema: ref("schemas", "WebhookList"), example: { webhooks: [EXAMPLE_WEBHOOK] } },
  },
  "DELETE /api/v1/webhooks/:id": {
    operationId: "deleteWebhook",
    tag: "Webhooks",
    summary: "Delete a webhook endpoint",
    description: "Nothing more is sent to it, including deliveries still being retried.",
    pathParams: { id: { description: "The webhook's id.", example: EXAMPLE_WEBHOOK.id } },
    success: { status: 200, description: "Deleted.", schema: ref("schemas", "Ok"), example: { ok: true } },
    errors: { NOT_FOUND: { when: "No webhook with this id is yours.", example: "Webhook not found" } },
  },
};
