import {
  DEFAULT_DELIVERY_LIMIT,
  type Webhook,
  type WebhookDelivery,
  type WebhookWithSecret,
} from "../domain/webhook.ts";
import type { EventType } from "../events/change-event.ts";
import { WebhookDeliveryStatus } from "../generated/prisma/enums.ts";
import { builder } from "./builder.ts";
import { EventTypeEnum } from "./event.ts";
import { pageArgs, pageType } from "./page.ts";

const WebhookRef = builder.objectRef<Webhook>("Webhook").implement({
  description: "An endpoint of yours that receives your events, signed as Standard Webhooks has it.",
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url"),
    events: t.field({ type: [EventTypeEnum], resolve: (webhook) => webhook.events as EventType[] }),
    description: t.exposeString("description", { nullable: true }),
    enabled: t.exposeBoolean("enabled", { description: "False once it has failed every attempt for too long." }),
    disabledReason: t.exposeString("disabledReason", { nullable: true }),
    failingSince: t.expose("failingSince", {
      type: "DateTime",
      nullable: true,
      description: "The first failed attempt since its last success.",
    }),
    previousSecretUntil: t.field({
      type: "DateTime",
      nullable: true,
      description: "Until when deliveries are signed with the secret before the last rotation as well.",
      resolve: (webhook) => (webhook.previousSecretUntil && webhook.previousSecretUntil > new Date() ? webhook.previousSecretUntil : null),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const WebhookWithSecretRef = builder.objectRef<WebhookWithSecret>("WebhookWithSecret").implement({
  fields: (t) => ({
    webhook: t.field({ type: WebhookRef, resolve: (created) => created.webhook }),
    secret: t.exposeString("secret", {
      description: "Verifies the webhook-signature of every delivery (whsec_…). Shown this once: keep it.",
    }),
  }),
});

const DeliveryStatusEnum = builder.enumType(WebhookDeliveryStatus, { name: "WebhookDeliveryStatus" });

const WebhookDeliveryRef = builder.objectRef<WebhookDelivery>("WebhookDelivery").implement({
  description: "One event sent (or to be sent) to one endpoint.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Sent as webhook-id, the same at every attempt." }),
    eventId: t.exposeID("eventId"),
    eventType: t.field({ type: EventTypeEnum, resolve: (delivery) => delivery.eventType as EventType }),
    status: t.expose("status", { type: DeliveryStatusEnum }),
    attempts: t.exposeInt("attempts"),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When a pending delivery is next tried.",
      resolve: (delivery) => (delivery.status === "pending" ? delivery.nextAttemptAt : null),
    }),
    lastAttemptAt: t.expose("lastAttemptAt", { type: "DateTime", nullable: true }),
    responseStatus: t.exposeInt("responseStatus", { nullable: true, description: "The HTTP status of the last attempt." }),
    lastError: t.exposeString("lastError", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    deliveredAt: t.expose("deliveredAt", { type: "DateTime", nullable: true }),
  }),
});

const WebhookDeliveryPage = pageType("WebhookDeliveryPage", WebhookDeliveryRef);

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [WebhookRef],
    description: "Your webhook endpoints, oldest first.",
    resolve: (_root, _args, { principal, services }) => services.webhooks.list(principal),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPage,
    description: "The deliveries to one of your endpoints, newest first.",
    args: {
      webhookId: t.arg.id({ required: true }),
      status: t.arg({ type: DeliveryStatusEnum }),
      ...pageArgs(DEFAULT_DELIVERY_LIMIT),
    },
    resolve: (_root, { webhookId, status, limit, offset }, { principal, services }) =>
      services.webhooks.deliveries(principal, webhookId, status, limit, offset),
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookWithSecretRef,
    description: "Registers an endpoint (https, on a public address) for your events; all of them when none are named.",
    args: {
      url: t.arg.string({ required: true }),
      events: t.arg({ type: [EventTypeEnum] }),
      description: t.arg.string(),
    },
    resolve: (_root, args, { principal, services }) => services.webhooks.create(principal, args),
  }),
  deleteWebhook: t.boolean({
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, { principal, services }) => {
      await services.webhooks.delete(principal, id);
      return true;
    },
  }),
  rotateWebhookSecret: t.field({
    type: WebhookWithSecretRef,
    description:
      "A new signing secret, used from the next delivery on. Until previousSecretUntil (the server's " +
      "WEBHOOK_SECRET_OVERLAP_HOURS) each delivery carries a signature by the old secret as well.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { principal, services }) => services.webhooks.rotateSecret(principal, id),
  }),
  enableWebhook: t.field({
    type: WebhookRef,
    description: "Sends to a disabled endpoint again, from the next event on; what failed meanwhile stays failed.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { principal, services }) => services.webhooks.enable(principal, id),
  }),
}));
