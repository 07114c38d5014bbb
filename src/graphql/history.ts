import { DEFAULT_HISTORY_LIMIT, type MemoryVersion } from "../domain/history.ts";
import { builder } from "./builder.ts";
import { MemoryRef } from "./memory.ts";
import { pageArgs, pageType } from "./page.ts";

const MemoryVersionRef = builder.objectRef<MemoryVersion>("MemoryVersion").implement({
  description: "One change to a memory.",
  fields: (t) => ({
    version: t.exposeInt("version", { description: "1 for the create, then one more for each change." }),
    action: t.exposeString("action", { description: "created, updated, archived, unarchived or deleted." }),
    changedAt: t.field({ type: "DateTime", resolve: (version) => version.changedAt }),
    keyId: t.exposeID("keyId", { nullable: true, description: "The API key that made the change (null: made outside the API)." }),
    keyName: t.exposeString("keyName", { nullable: true, description: "That key's name; never its secret." }),
    before: t.field({ type: "JSONObject", nullable: true, description: "The memory before the change, with its GraphQL field names; null for a create.", resolve: (version) => version.before }),
    after: t.field({ type: "JSONObject", nullable: true, description: "The memory after the change; null for a delete.", resolve: (version) => version.after }),
  }),
});

const MemoryHistoryPage = pageType("MemoryHistoryPage", MemoryVersionRef);

builder.objectField(MemoryRef, "history", (t) =>
  t.field({
    type: MemoryHistoryPage,
    description: "How the memory changed, newest change first.",
    args: pageArgs(DEFAULT_HISTORY_LIMIT),
    resolve: (memory, { limit, offset }, { principal, services }) => services.history.list(principal, memory.id, limit, offset),
  }),
);

builder.queryField("memoryHistory", (t) =>
  t.field({
    type: MemoryHistoryPage,
    description: `How one of your memories changed, newest first: also after it was deleted (for HISTORY_RETENTION_DAYS). Empty for an id that is not one of your memories'.`,
    args: {
      id: t.arg.id({ required: true }),
      ...pageArgs(DEFAULT_HISTORY_LIMIT),
    },
    resolve: (_root, { id, limit, offset }, { principal, services }) => services.history.list(principal, id, limit, offset),
  }),
);
