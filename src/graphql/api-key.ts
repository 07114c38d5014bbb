import type { CreatedKey } from "../domain/api-key.ts";
import { builder } from "./builder.ts";

const ApiKeyRef = builder.prismaObject("ApiKey", {
  description: "An API key of yours. The key itself is shown once, when it is created, and never stored.",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    prefix: t.exposeString("prefix", { description: "The first characters of the key, to tell keys apart." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", {
      type: "DateTime",
      nullable: true,
      description: "When the key was last used, to the minute.",
    }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
    revoked: t.boolean({ resolve: (key) => key.revokedAt !== null }),
    current: t.boolean({
      description: "Whether this is the key the request was made with.",
      resolve: (key, _args, { principal }) => key.id === principal.keyId,
    }),
  }),
});

const CreatedApiKey = builder.objectRef<CreatedKey>("CreatedApiKey").implement({
  fields: (t) => ({
    key: t.exposeString("key", { description: "The full key. It is not shown again: store it now." }),
    apiKey: t.field({ type: ApiKeyRef, resolve: (created) => created.apiKey }),
  }),
});

builder.queryField("apiKeys", (t) =>
  t.field({
    type: [ApiKeyRef],
    description: "Your API keys, newest first, revoked ones included.",
    resolve: (_root, _args, { principal, services }) => services.apiKeys.list(principal.userId),
  }),
);

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description:
      "A new key of yours, its secret shown once. You hold at most MAX_KEYS_PER_USER (default 20) keys that are not revoked: rate limits are per key.",
    args: { name: t.arg.string({ required: true, description: "What the key is for, e.g. 'laptop'." }) },
    resolve: (_root, { name }, { principal, services }) => services.apiKeys.createOwn(principal.userId, name),
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    description: "Disables one of your keys at once. Revoking the key of this request is allowed.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { principal, services }) => services.apiKeys.revoke(id, principal.userId),
  }),
}));
