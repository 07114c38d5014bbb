import { isInputType, type GraphQLInputType } from "graphql";
import { AppError, asAppError, invalid } from "../../errors.ts";
import { isPlainObject } from "../../domain/json.ts";
import { MAX_BATCH_ITEMS } from "../../domain/memory.ts";
import { restError } from "../errors.ts";
import { EXAMPLE_MEMORY_ID, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import { memoryInputOf } from "../memory-wire.ts";
import { coerceValue, Operation } from "../operation.ts";
import type { RestHandler, Router } from "../router.ts";

interface ItemResult {
  success: boolean;
  id: string | null;
  error: { code: string; message: string; field: string | null } | null;
}

// only the id, and through BatchItemResult.id rather than memory { id }: the REST answer carries nothing else
// of a stored item, and a Memory reached through a plain field is read again from the database
const batchCreate = new Operation<{
  batchCreateMemories: { results: ItemResult[] };
}>(/* GraphQL */ `
  mutation RestBatchCreate($items: [CreateMemoryInput!]!) {
    batchCreateMemories(items: $items) {
      results { success id error { code message field } }
    }
  }
`);

type RestItemResult = { success: true; id: string } | { success: false; error: { code: string; message: string } };

const failure = (error: AppError): RestItemResult => ({ success: false, error: restError(error) });

/** The items of a batch body: a bare array, or {"memories": [...]}. */
function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (isPlainObject(body) && Object.keys(body).length === 1 && Array.isArray(body.memories)) return body.memories;
  throw invalid("body", 'must be an array of memories, or an object {"memories": [...]}');
}

const batchDoc: RouteDoc = {
  operationId: "batchCreateMemories",
  tag: "Memories",
  summary: "Create memories in a batch",
  description:
    `Creates 1 to ${MAX_BATCH_ITEMS} memories. Each item is checked on its own: the valid ones are stored even when ` +
    "others are refused, and the answer says which. Only a body that is not a list of 1 to " +
    `${MAX_BATCH_ITEMS} items fails as a whole (400).`,
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
        value: { memories: [{ content: "Works from Lisbon", type: "observation" }, { content: "" }] },
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
        { success: false, error: { code: "VALIDATION_ERROR", message: "content must not be empty" } },
      ],
    },
  },
};

/** POST /api/v1/memory/batch: each item is checked on its own, so one malformed item fails alone. */
export const batch: RestHandler = async ({ query, body, schema, context }) => {
  query.only([]);
  const items = itemsOf(await body());
  if (items.length < 1 || items.length > MAX_BATCH_ITEMS) {
    throw invalid("memories", `must hold 1 to ${MAX_BATCH_ITEMS} items (it holds ${items.length})`);
  }
  const itemType = schema.getType("CreateMemoryInput");
  if (!itemType || !isInputType(itemType)) throw new Error("CreateMemoryInput is not in the schema");
  const results: RestItemResult[] = new Array(items.length);
  const wellFormed: { index: number; input: unknown }[] = [];
  items.forEach((item, index) => {
    try {
      wellFormed.push({ index, input: coerceValue(memoryInputOf(item, "item"), itemType as GraphQLInputType) });
    } catch (error) {
      results[index] = failure(asAppError(error));
    }
  });
  if (wellFormed.length) {
    const { batchCreateMemories: done } = await batchCreate.runCoerced(schema, context, { items: wellFormed.map((w) => w.input) });
    done.results.forEach((result, k) => {
      const { index } = wellFormed[k]!;
      results[index] = result.success
        ? { success: true, id: result.id! }
        : { success: false, error: restError(result.error!) };
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
