import { isInputType, type GraphQLInputType } from "graphql";
import { AppError, asAppError, invalid } from "../../errors.ts";
import { isPlainObject } from "../../domain/json.ts";
import { MAX_BATCH_ITEMS } from "../../domain/memory.ts";
import { restError } from "../errors.ts";
import { EXAMPLE_MEMORY_ID, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { createInputOf } from "../memory-wire.ts";
import { coerceValue, Operation } from "../operation.ts";
import type { RestHandler, Router } from "../router.ts";

interface ItemResult {
  success: boolean;
  deduplicated: boolean;
  id: string | null;
  error: { code: string; message: string; field: string | null } | null;
}

// only the id, and through BatchItemResult.id rather than memory { id }: the REST answer carries nothing else
// of a stored item, and a Memory reached through a plain field is read again from the database
const batchCreate = new Operation<{
  batchCreateMemories: { results: ItemResult[] };
}>(/* GraphQL */ `
  mutation RestBatchCreate($items: [CreateMemoryInput!]!, $dedupe: Boolean) {
    batchCreateMemories(items: $items, dedupe: $dedupe) {
      results { success deduplicated id error { code message field } }
    }
  }
`);

type RestItemResult =
  | { success: true; id: string; deduplicated?: true }
  | { success: false; error: { code: string; message: string } };

const failure = (error: AppError): RestItemResult => ({ success: false, error: restError(error) });

/** The items of a batch body, a bare array or {"memories": [...], "dedupe"?: boolean}, and its `dedupe`. */
function itemsOf(body: unknown): { items: unknown[]; dedupe?: boolean } {
  if (Array.isArray(body)) return { items: body };
  if (isPlainObject(body) && Array.isArray(body.memories)) {
    const unknown = Object.keys(body).find((key) => key !== "memories" && key !== "dedupe");
    if (unknown !== undefined) throw invalid(unknown, "is not a field of a batch (memories, dedupe)");
    if (body.dedupe !== undefined && typeof body.dedupe !== "boolean") throw invalid("dedupe", "must be true or false");
    return { items: body.memories, dedupe: body.dedupe };
  }
  throw invalid("body", 'must be an array of memories, or an object {"memories": [...]}');
}

const batchDoc: RouteDoc = {
  operationId: "batchCreateMemories",
  tag: "Memories",
  summary: "Create memories in a batch",
  description:
    `Creates 1 to ${MAX_BATCH_ITEMS} memories. Each item is checked on its own: the valid ones are stored even when ` +
    "others are refused, and the answer says which. Only a body that is not a list of 1 to " +
    `${MAX_BATCH_ITEMS} items fails as a whole (400). With \`dedupe\` (for every item, or an item's own), an item you ` +
    "already have — or that an earlier item of the batch holds — answers that memory's id with `deduplicated: true` " +
    "(see Create a memory).",
  body: {
    schema: ref("schemas", "BatchRequest"),
    examples: {
      array: {
        summary: "A bare array",
        value: [
          { content: "Works from Lisbon", type: "observation" },
          { content: "Call the bank on Monday", type: "task", tags: ["errands"] },
        ],
      },
      wrapped: {
        summary: 'Wrapped as {"memories": [...]}',
        value: {
          memories: [
            { content: "Works from Lisbon", type: "observation" },
            { content: "In a thread that is not there", thread_id: "00000000-0000-4000-8000-000000000000" },
          ],
        },
      },
      deduplicated: {
        summary: "Storing only what you do not have yet",
        value: { memories: [{ content: "Works from Lisbon" }, { content: "works from  lisbon" }], dedupe: true },
      },
    },
  },
  success: {
    status: 200,
    description: "One result per item, in order.",
    schema: ref("schemas", "BatchResult"),
    example: {
      summary: { total: 2, successful: 1, failed: 1 },
      results: [
        { success: true, id: EXAMPLE_MEMORY_ID },
        { success: false, error: { code: "VALIDATION_ERROR", message: "thread_id does not name one of your threads" } },
      ],
    },
  },
};

/** POST /api/v1/memory/batch: each item is checked on its own, so one malformed item fails alone. */
export const batch: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const { items, dedupe } = itemsOf(await body());
  if (items.length < 1 || items.length > MAX_BATCH_ITEMS) {
    throw invalid("memories", `must hold 1 to ${MAX_BATCH_ITEMS} items (it holds ${items.length})`);
  }
  const itemType = schema.getType("CreateMemoryInput");
  if (!itemType || !isInputType(itemType)) throw new Error("CreateMemoryInput is not in the schema");
  const results: RestItemResult[] = new Array(items.length);
  const wellFormed: { index: number; input: unknown }[] = [];
  items.forEach((item, index) => {
    try {
      wellFormed.push({ index, input: coerceValue(createInputOf(item, "item"), itemType as GraphQLInputType) });
    } catch (error) {
      results[index] = failure(asAppError(error));
    }
  });
  if (wellFormed.length) {
    const { batchCreateMemories: done } = await batchCreate.runCoerced(schema, context, { items: wellFormed.map((w) => w.input), dedupe });
    done.results.forEach((result, k) => {
      const { index } = wellFormed[k]!;
      results[index] = !result.success
        ? { success: false, error: restError(result.error!) }
        : result.deduplicated
          ? { success: true, id: result.id!, deduplicated: true }
          : { success: true, id: result.id! };
    });
  }
  const successful = results.filter((result) => result.success).length;
  return {
    status: 200,
    body: { summary: { total: items.length, successful, failed: items.length - successful }, results },
  };
};

export function addBatchRoutes(router: Router): void {
  router.add("POST", "/api/v1/memory/batch", batch, { doc: batchDoc });
}
