import { DEFAULT_LIST_LIMIT, MAX_BATCH_ITEMS } from "../../domain/memories.ts";
import { DEFAULT_RECALL_LIMIT } from "../../domain/recall.ts";
import { DEFAULT_SEARCH_LIMIT } from "../../domain/search.ts";
import {
  boolParam,
  EXAMPLE_MEMORY,
  EXAMPLE_MEMORY_ID,
  EXAMPLE_THREAD_ID,
  legacyScopeParams,
  limitParam,
  offsetParam,
  tagsParam,
  type RouteDocs,
} from "./route-doc.ts";
import { ref, type Parameter } from "./types.ts";

const MEMORY_ID = {
  id: {
    description: "The memory's id. Another user's id, or anything that is not an id, is 404 like a missing one.",
    example: EXAMPLE_MEMORY_ID,
  },
};

const NOT_FOUND = { when: "No memory with this id is yours.", example: "Memory not found" };
const EMBEDDER_DOWN = {
  when: "The embedding service (OPENAI_BASE_URL) did not answer; retry shortly.",
  example: "The embedding service is unavailable; try again shortly",
};

const threadIdParam = (description: string): Parameter => ({
  name: "thread_id",
  in: "query",
  description,
  schema: { type: "string", format: "uuid" },
});

const queryParam = (description: string, example: string): Parameter => ({
  name: "query",
  in: "query",
  required: true,
  description,
  schema: { type: "string", minLength: 1 },
  example,
});

const typeParam = (description: string): Parameter => ({ name: "type", in: "query", description, schema: { type: "string" } });

/** The current, user-scoped memory routes (src/rest/routes/memory.ts, memory-record.ts, search.ts, recall.ts, batch.ts). */
export const memoryRoutes: RouteDocs = {
  "POST /api/v1/memory": {
    operationId: "createMemory",
    tag: "Memories",
    summary: "Create a memory",
    description:
      "Stores a memory owned by the API key's user. It is searchable as soon as the index has taken it in (within moments).",
    body: {
      schema: ref("schemas", "MemoryCreate"),
      examples: {
        text: {
          summary: "A text memory",
          value: { content: "I prefer tea to coffee", type: "preference", tags: ["drinks"], metadata: { source: "chat" } },
        },
        record: {
          summary: "A structured record",
          value: { content: { drink: "tea", milk: false }, type: "preference" },
        },
      },
    },
    success: {
      status: 201,
      description: "The memory created.",
      schema: ref("schemas", "CreatedMemory"),
      example: { ...EXAMPLE_MEMORY, ok: true },
    },
  },
  "GET /api/v1/memory": {
    operationId: "listMemories",
    tag: "Memories",
    summary: "List memories",
    description: "Your memories, newest first, filtered and paged.",
    query: [
      limitParam(DEFAULT_LIST_LIMIT, "memories"),
      offsetParam("memories"),
      typeParam("Only memories of this type."),
      tagsParam("Only memories that carry every one of these tags."),
      threadIdParam("Only memories filed under this thread."),
      boolParam("is_archived", "true: only archived memories; false: only live ones; absent: both."),
    ],
    success: {
      status: 200,
      description: "A page of memories.",
      schema: ref("schemas", "MemoryList"),
      example: { memories: [EXAMPLE_MEMORY], total: 1, limit: DEFAULT_LIST_LIMIT, offset: 0, has_more: false },
    },
  },
  "GET /api/v1/memory/search": {
    operationId: "searchMemories",
    tag: "Search",
    summary: "Search memories (semantic)",
    description:
      "Your live (not archived) memories nearest to the query by meaning (sentence vectors), blended with those that " +
      "share its words (BM25): a paraphrase finds its memory, and so does a word only one memory holds.",
    query: [
      queryParam("What to look for, in natural language.", "hot drinks"),
      limitParam(DEFAULT_SEARCH_LIMIT, "results"),
      typeParam("Only memories of this type."),
      tagsParam("Only memories that carry every one of these tags."),
      {
        name: "from_date",
        in: "query",
        description: "Only memories created at or after this time.",
        schema: { type: "string", format: "date-time" },
      },
      {
        name: "to_date",
        in: "query",
        description: "Only memories created at or before this time.",
        schema: { type: "string", format: "date-time" },
      },
    ],
    success: {
      status: 200,
      description: "The nearest memories, nearest first.",
      schema: ref("schemas", "SearchResults"),
      example: { results: [{ ...EXAMPLE_MEMORY, score: 0.82 }], total: 1 },
    },
    errors: { SERVICE_UNAVAILABLE: EMBEDDER_DOWN },
  },
  "POST /api/v1/memory/batch": {
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
  },
  "POST /api/v1/memory/recall": {
    operationId: "recall",
    tag: "Search",
    summary: "Recall (hybrid)",
    description:
      "Conversational, profile-aware lookup: a question about the user answers from their preference memories; anything " +
      "else combines lexical (BM25) and semantic search, within a thread when thread_id is given. Archived memories are left out.",
    body: {
      schema: ref("schemas", "RecallRequest"),
      examples: {
        question: { summary: "A question about the user", value: { query: "What does the user like to drink?", limit: 5 } },
      },
    },
    success: {
      status: 200,
      description: "The memories recalled, most relevant first.",
      schema: ref("schemas", "RecallResults"),
      example: { results: [{ ...EXAMPLE_MEMORY, relevance: 1 }], total: 1, query_type: "profile" },
    },
    errors: { SERVICE_UNAVAILABLE: EMBEDDER_DOWN },
  },
  "GET /api/v1/memory/recall": {
    operationId: "recallGet",
    tag: "Search",
    summary: "Recall (hybrid), by query string",
    description: "The same as POST /api/v1/memory/recall, with the inputs in the query string.",
    query: [
      queryParam("What the conversation is about, or a question about the user.", "drinks"),
      limitParam(DEFAULT_RECALL_LIMIT, "memories"),
      threadIdParam("Recall within this thread of yours only."),
    ],
    success: {
      status: 200,
      description: "The memories recalled, most relevant first.",
      schema: ref("schemas", "RecallResults"),
    },
    errors: { SERVICE_UNAVAILABLE: EMBEDDER_DOWN },
  },
  "GET /api/v1/memories/:id": {
    operationId: "getMemory",
    tag: "Memories",
    summary: "Get a memory",
    pathParams: MEMORY_ID,
    query: legacyScopeParams,
    success: { status: 200, description: "The memory.", schema: ref("schemas", "Memory"), example: EXAMPLE_MEMORY },
    errors: { NOT_FOUND },
  },
  "PATCH /api/v1/memories/:id": {
    operationId: "updateMemory",
    tag: "Memories",
    summary: "Update a memory (partial)",
    description: "Changes the fields sent and keeps the others.",
    pathParams: MEMORY_ID,
    query: legacyScopeParams,
    body: {
      schema: ref("schemas", "MemoryPatch"),
      examples: {
        archive: { summary: "Archive it", value: { is_archived: true } },
        retag: {
          summary: "Move it to a thread and retag it",
          value: { thread_id: EXAMPLE_THREAD_ID, tags: ["drinks", "morning"] },
        },
      },
    },
    success: { status: 200, description: "The memory as changed.", schema: ref("schemas", "Memory") },
    errors: { NOT_FOUND },
  },
  "PUT /api/v1/memories/:id": {
    operationId: "replaceMemory",
    tag: "Memories",
    summary: "Replace a memory (full)",
    description: "Replaces every writable field; a field left out goes back to its default.",
    pathParams: MEMORY_ID,
    query: legacyScopeParams,
    body: {
      schema: ref("schemas", "MemoryReplace"),
      examples: {
        replace: {
          summary: "A new text and type; tags, metadata and thread cleared",
          value: { content: "I prefer green tea", type: "preference" },
        },
      },
    },
    success: { status: 200, description: "The memory as replaced.", schema: ref("schemas", "Memory") },
    errors: { NOT_FOUND },
  },
  "DELETE /api/v1/memories/:id": {
    operationId: "deleteMemory",
    tag: "Memories",
    summary: "Delete a memory",
    pathParams: MEMORY_ID,
    query: legacyScopeParams,
    success: { status: 200, description: "Deleted.", schema: ref("schemas", "Ok"), example: { ok: true } },
    errors: { NOT_FOUND },
  },
};
