import { queryFromInfo } from "@pothos/plugin-prisma";
import { invalid } from "../errors.ts";
import { DEFAULT_LIST_LIMIT, type LegacyOrigin } from "../domain/memory.ts";
import { unstorableText } from "../domain/json.ts";
import { builder } from "./builder.ts";
import { MemoryPage } from "./memory.ts";

// The deprecated workspace-scoped collection API, on the same store and rules as the current one.
const DEPRECATION = "Workspace-scoped and deprecated: use createMemory / memories (the owner comes from the API key).";
export const MAX_LEGACY_ID_CHARS = 200;

function legacyId(field: string, value: string | null | undefined, required: boolean): string | null {
  const clean = value?.trim() ?? "";
  if (!clean) {
    if (required) throw invalid(field, "is required");
    return null;
  }
  if (clean.length > MAX_LEGACY_ID_CHARS) throw invalid(field, `must be at most ${MAX_LEGACY_ID_CHARS} characters`);
  const reason = unstorableText(clean);
  if (reason) throw invalid(field, reason);
  return clean;
}

const LegacyCreateMemoryInput = builder.inputType("LegacyCreateMemoryInput", {
  description: DEPRECATION,
  fields: (t) => ({
    workspaceId: t.string({ required: true }),
    userId: t.string({ description: "Kept and echoed; it never decides who owns the memory." }),
    content: t.string(),
    data: t.field({ type: "JSONObject" }),
    kind: t.string({ description: "The type, under its old name." }),
  }),
});

builder.mutationField("legacyCreateMemory", (t) =>
  t.prismaField({
    type: "Memory",
    deprecationReason: DEPRECATION,
    args: { input: t.arg({ type: LegacyCreateMemoryInput, required: true }) },
    resolve: (_query, _root, { input }, { principal, services }) => {
      const origin: LegacyOrigin = {
        workspaceId: legacyId("workspaceId", input.workspaceId, true)!,
        legacyUserId: legacyId("userId", input.userId, false),
      };
      return services.memories.create(principal, { content: input.content, data: input.data, type: input.kind }, origin);
    },
  }),
);

builder.queryField("legacyMemories", (t) =>
  t.field({
    type: MemoryPage,
    deprecationReason: DEPRECATION,
    args: {
      workspaceId: t.arg.string({ required: true }),
      limit: t.arg.int({ defaultValue: DEFAULT_LIST_LIMIT }),
      offset: t.arg.int({ defaultValue: 0 }),
    },
    resolve: (_root, args, context, info) =>
      context.services.memories.list(
        context.principal,
        { workspaceId: legacyId("workspaceId", args.workspaceId, true) },
        args.limit,
        args.offset,
        queryFromInfo({ context, info, path: ["items"], typeName: "Memory" }),
      ),
  }),
);
