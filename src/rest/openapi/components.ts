import type { Limits } from "../../config.ts";
import { MAX_TTL_SECONDS } from "../../domain/expiry.ts";
import { MAX_BATCH_ITEMS } from "../../domain/memory.ts";
import { KNOWN_MEMORY_TYPES } from "../../domain/memory-input.ts";
import { MAX_PAGE_SIZE } from "../../domain/paging.ts";
import { DEFAULT_RECALL_LIMIT, type RecallPath } from "../../domain/recall.ts";
import { DEFAULT_SEARCH_LIMIT } from "../../domain/search.ts";
import { MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS } from "../../domain/thread.ts";
import { MAX_URL_CHARS, MAX_WEBHOOK_DESCRIPTION_CHARS } from "../../domain/webhook.ts";
import { EVENT_TYPES } from "../../events/change-event.ts";
import { ThreadStatus, WebhookDeliveryStatus } from "../../generated/prisma/enums.ts";
import { errorStatus } from "../../errors.ts";
import { MAX_LEGACY_ID_CHARS } from "../../graphql/legacy.ts";
import { LEGACY_MEMORY_SCHEMA } from "../legacy-wire.ts";
import { MEMORY_SCHEMA } from "../memory-wire.ts";
import { THREAD_SCHEMA } from "../thread-wire.ts";
import { DELIVERY_SCHEMA, WEBHOOK_SCHEMA } from "../webhook-wire.ts";
import { uuid } from "./schema-parts.ts";
import { ref, type Schema } from "./types.ts";

// a Record over the union, so that a new recall path fails to compile until it is documented
const RECALL_PATHS = Object.keys({ profile: true, thread: true, hybrid: true, semantic: true } satisfies Record<
  RecallPath,
  true
>);

/** A page of a list: the items under `name`, then the paging fields every list answers with. */
const page = (name: string, item: Schema): Schema => ({
  type: "object",
  required: [name, "total", "limit", "offset", "has_more"],
  properties: {
    [name]: { type: "array", items: item },
    total: { type: "integer", minimum: 0, description: "How many match in all." },
    limit: { type: "integer", minimum: 1, description: "The page size used." },
    offset: { type: "integer", minimum: 0, description: "How many were skipped." },
    has_more: { type: "boolean", description: "Whether a later page holds more (offset + page length < total)." },
  },
  additionalProperties: false,
});

/** A page of a list that can also be paged by cursor (`cursor` in, `next_cursor` out). */
const cursorPage = (name: string, item: Schema): Schema => {
  const offsetPage = page(name, item);
  return {
    ...offsetPage,
    required: [...(offsetPage.required ?? []), "next_cursor"],
    properties: {
      ...offsetPage.properties,
      offset: { type: ["integer", "null"], minimum: 0, description: "How many were skipped; null for a page asked for by cursor." },
      next_cursor: {
        type: ["string", "null"],
        description: "Pass as `cursor` for the next page, which memories added meanwhile do not shift; null on the last page.",
      },
    },
  };
};

/** Fields of a fetched record that a body may carry back unchanged; the server ignores them. */
const ignored = (names: string[]): Record<string, Schema> =>
  Object.fromEntries(names.map((name) => [name, { readOnly: true, description: "Read-only: accepted and ignored." }]));

/** The JSON bodies and answers of the REST routes (snake_case, as on the wire), with the configured bounds. */
export function schemas(limits: Limits): Record<string, Schema> {
  const content: Schema = {
    description:
      `The text to remember (1 to ${limits.maxContentChars} characters, not blank), or a structured record as a ` +
      "non-empty JSON object, which is stored and returned as the same object (its canonical JSON text is what search matches).",
    oneOf: [
      { type: "string", minLength: 1, maxLength: limits.maxContentChars },
      { type: "object", minProperties: 1 },
    ],
  };
  const type: Schema = {
    type: ["string", "null"],
    description:
      `A short lowercase word (trimmed and lowercased first): ${KNOWN_MEMORY_TYPES.join(", ")}, or another ` +
      "word of up to 32 letters, digits, _ or -. Null: no type.",
    examples: ["preference"],
  };
  const tags: Schema = {
    type: ["array", "null"],
    maxItems: limits.maxTags,
    items: { type: "string", minLength: 1, maxLength: limits.maxTagChars },
    description: `Up to ${limits.maxTags} tags of up to ${limits.maxTagChars} characters; trimmed, duplicates dropped. Null: none.`,
  };
  const metadata: Schema = {
    type: ["object", "null"],
    description: `Free-form JSON object, at most ${limits.maxMetadataBytes} bytes of JSON. Null: {}.`,
  };
  const threadId: Schema = {
    type: ["string", "null"],
    format: "uuid",
    description: "The id of one of your threads to file the memory under; null: none.",
  };
  const isArchived: Schema = {
    type: "boolean",
    description: "Archived memories stay listed but are left out of search and recall.",
  };
  const expiresAt: Schema = {
    type: ["string", "null"],
    format: "date-time",
    description:
      "When the memory expires (ISO 8601 with a time zone): in the future, at most ten years ahead. From then on no " +
      "route shows it, and it is deleted soon after. Not with ttl_seconds. Null: never (PATCH: clears the expiry).",
  };
  const ttlSeconds: Schema = {
    type: ["integer", "null"],
    minimum: 1,
    maximum: MAX_TTL_SECONDS,
    description: "Expire the memory this many seconds from now (at most ten years); it is answered as expires_at. Not with expires_at.",
  };
  const memoryFields = {
    content,
    type,
    tags,
    metadata,
    thread_id: threadId,
    is_archived: isArchived,
    expires_at: expiresAt,
    ttl_seconds: ttlSeconds,
  };
  const memoryBodyIgnored = ignored(["id", "ok", "deduplicated", "created_at", "updated_at"]);
  const dedupe: Schema = {
    type: "boolean",
    description:
      "true: when you already have a memory with the same content (Unicode NFKC, case and whitespace aside; a record by " +
      "its canonical JSON), type and thread — or, when the server's DEDUPE is near, one at least DEDUPE_NEAR_SIMILARITY " +
      "similar — answer it (`deduplicated: true`) instead of storing a copy. false: always store. Absent: the server's DEDUPE rule.",
  };
  // what legacy clients send to the record routes they share with current ones (src/rest/legacy-fields.ts)
  const legacyNote = "Sent by legacy clients: accepted, ignored, and X-API-Warn says so.";
  const legacyRecordFields: Record<string, Schema> = {
    ...Object.fromEntries(["workspaceId", "userId", "ttlMinutes", "ttl_expires_at"].map((name) => [name, { deprecated: true, description: legacyNote }])),
    kind: { deprecated: true, description: "The old name of type, read as type (both given and different: 400); X-API-Warn says so." },
  };

  // a copy, not an allOf: Memory admits no other properties, so an allOf of it could never add one
  const withExtra = (name: string, extra: Schema, description: string): Schema => ({
    ...MEMORY_SCHEMA,
    description,
    required: [...MEMORY_SCHEMA.required!, name],
    properties: { ...MEMORY_SCHEMA.properties, [name]: extra },
  });

  const threadText = (max: number): Schema => ({
    type: "string",
    minLength: 1,
    maxLength: max,
    description: `1 to ${max} characters, not blank; trimmed.`,
  });

  return {
    Error: {
      type: "object",
      description: "Every REST error answers with this body; the code decides the status.",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message"],
          properties: {
            code: { type: "string", enum: Object.keys(errorStatus), description: "Stable: branch on this." },
            message: {
              type: "string",
              description: "For people; a validation message begins with the field at fault (e.g. `tags[1] must be a string`).",
            },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    Memory: MEMORY_SCHEMA,
    CreatedMemory: withExtra("ok", { const: true }, "The memory created, with `ok: true`."),
    DeduplicatedMemory: {
      ...MEMORY_SCHEMA,
      description: "The memory you already had, answered instead of a copy, with `ok: true` and `deduplicated: true`.",
      required: [...MEMORY_SCHEMA.required!, "ok", "deduplicated"],
      properties: { ...MEMORY_SCHEMA.properties, ok: { const: true }, deduplicated: { const: true } },
    },
    MemoryCreate: {
      type: "object",
      description: "A new memory. Fields other than content take their defaults when left out.",
      required: ["content"],
      properties: { ...memoryFields, dedupe, ...memoryBodyIgnored },
      additionalProperties: false,
    },
    MemoryReplace: {
      type: "object",
      description:
        "A full replacement: every writable field left out goes back to its default (type null, tags [], metadata {}, " +
        "thread_id null, is_archived false, no expiry). The read-only fields of a fetched memory may be sent back; they are ignored.",
      required: ["content"],
      properties: { ...memoryFields, ...memoryBodyIgnored, ...legacyRecordFields },
      additionalProperties: false,
    },
    MemoryPatch: {
      type: "object",
      description: "A partial update: fields not sent are kept; null clears type, tags, metadata, thread_id and expires_at.",
      properties: {
        ...memoryFields,
        content: { ...content, description: `${content.description} Cannot be null.` },
        is_archived: { ...isArchived, description: `${isArchived.description} Cannot be null.` },
        ...memoryBodyIgnored,
        ...legacyRecordFields,
      },
      additionalProperties: false,
    },
    MemoryList: cursorPage("memories", ref("schemas", "Memory")),
    MemoryVersion: {
      type: "object",
      description: "One change to a memory.",
      required: ["version", "action", "changed_at", "key_id", "key_name", "before", "after"],
      properties: {
        version: { type: "integer", minimum: 1, description: "1 for the create, then one more for each change." },
        action: { type: "string", enum: ["created", "updated", "archived", "unarchived", "deleted"] },
        changed_at: { type: "string", format: "date-time" },
        key_id: { type: ["string", "null"], format: "uuid", description: "The API key that made the change (null: made outside the API)." },
        key_name: { type: ["string", "null"], description: "That key's name; never its secret." },
        before: { oneOf: [ref("schemas", "Memory"), { type: "null" }], description: "The memory before the change; null for a create." },
        after: { oneOf: [ref("schemas", "Memory"), { type: "null" }], description: "The memory after the change; null for a delete." },
      },
      additionalProperties: false,
    },
    MemoryHistory: page("history", ref("schemas", "MemoryVersion")),
    SearchHit: withExtra(
      "score",
      { type: "number", minimum: 0, maximum: 1, description: "Relevance from 0 to 1 (BM25 and cosine similarity blended); higher is closer." },
      "A memory found, with its score.",
    ),
    SearchResults: {
      type: "object",
      required: ["results", "total"],
      properties: {
        results: { type: "array", items: ref("schemas", "SearchHit"), description: "Nearest first." },
        total: { type: "integer", minimum: 0, description: "How many results there are." },
      },
      additionalProperties: false,
    },
    RecallRequest: {
      type: "object",
      required: ["query"],
      properties: {
        query: {
          type: "string",
          minLength: 1,
          maxLength: limits.maxContentChars,
          description: "What the conversation is about, or a question about the user.",
        },
        limit: { type: ["integer", "null"], minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_RECALL_LIMIT },
        thread_id: { ...threadId, description: "Recall within this thread of yours only." },
        filter: {
          type: "object",
          description:
            "Only memories that pass it: the structure of the list's `filter` parameter (type, tags, thread_id, metadata conditions, and/or/not), as JSON. " +
            "With a filter the question-about-you path is left out and the hybrid ranking answers.",
        },
      },
      additionalProperties: false,
    },
    SearchRequest: {
      type: "object",
      required: ["query"],
      properties: {
        query: { type: "string", minLength: 1, maxLength: limits.maxContentChars, description: "What to look for, in natural language." },
        limit: { type: ["integer", "null"], minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_SEARCH_LIMIT },
        filter: {
          type: "object",
          description:
            "Only memories that pass it: the structure of the list's `filter` parameter (type, tags, thread_id, from_date, to_date, metadata conditions, and/or/not), as JSON.",
        },
      },
      additionalProperties: false,
    },
    RecallHit: withExtra(
      "relevance",
      { type: "number", minimum: 0, maximum: 1, description: "1 is first in every list that ran." },
      "A memory recalled, with its relevance.",
    ),
    RecallResults: {
      type: "object",
      required: ["results", "total", "query_type"],
      properties: {
        results: { type: "array", items: ref("schemas", "RecallHit"), description: "Most relevant first." },
        total: { type: "integer", minimum: 0 },
        query_type: {
          type: "string",
          enum: RECALL_PATHS,
          description:
            "How recall answered: profile (a question about the user, from preference memories), thread (lexical and " +
            "semantic within the thread given), hybrid (lexical and semantic fused), semantic (no lexical match).",
        },
      },
      additionalProperties: false,
    },
    ExportLine: {
      description:
        "One line of an export: a thread or a memory as the API shows it, with `kind`; a memory may carry `history` " +
        "and `embedding`. A line `{kind: \"error\", error}` ends an export that failed after it began.",
      type: "object",
      required: ["kind"],
      properties: {
        kind: { enum: ["thread", "memory", "error"] },
        history: { type: "array", items: { type: "object" }, description: "With history=true: the memory's versions, oldest first." },
        embedding: {
          type: ["object", "null"],
          description: "With embeddings=true: the memory's vector, or null when it is not embedded yet.",
          required: ["embedder", "vector"],
          properties: {
            embedder: { type: "string", description: "The embedder's id: model and dimensions.", examples: ["builtin-hash-v1:512"] },
            vector: { type: "string", description: "float32 little-endian values, base64 (an import also takes an array of numbers)." },
          },
        },
      },
    },
    ImportRequest: {
      description:
        "As application/x-ndjson: the lines of an export (`kind` absent means a memory). As application/json: an array " +
        'of such records, or {"memories": [...]}.',
      oneOf: [
        // an export's lines, `kind` optional: the schema of an export's line would require it
        { type: "array", items: { type: "object", properties: { kind: { enum: ["thread", "memory"] } } } },
        { type: "object", required: ["memories"], properties: { memories: { type: "array", items: { type: "object" } } } },
      ],
    },
    ImportResult: {
      type: "object",
      required: ["created", "updated", "skipped", "failed", "results"],
      properties: {
        created: { type: "integer", minimum: 0 },
        updated: { type: "integer", minimum: 0, description: "Records you held already, different in the file." },
        skipped: { type: "integer", minimum: 0, description: "Records you held already, the same in the file." },
        failed: { type: "integer", minimum: 0 },
        results: {
          type: "array",
          description: "One per record line, in order (blank lines have none).",
          items: {
            type: "object",
            required: ["line", "kind", "id", "status"],
            properties: {
              line: { type: "integer", minimum: 1, description: "The line's number (an array's item's, from 1)." },
              kind: { enum: ["thread", "memory", null] },
              id: { type: ["string", "null"] },
              status: { enum: ["created", "updated", "skipped", "failed"] },
              error: {
                type: "object",
                required: ["code", "message"],
                properties: { code: { type: "string" }, message: { type: "string" } },
                additionalProperties: false,
              },
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    BatchRequest: {
      description: `1 to ${MAX_BATCH_ITEMS} memories, as a bare array or wrapped as {"memories": [...]}.`,
      oneOf: [
        { type: "array", minItems: 1, maxItems: MAX_BATCH_ITEMS, items: ref("schemas", "MemoryCreate") },
        {
          type: "object",
          required: ["memories"],
          properties: {
            memories: { type: "array", minItems: 1, maxItems: MAX_BATCH_ITEMS, items: ref("schemas", "MemoryCreate") },
            dedupe: { type: "boolean", description: "`dedupe` for the items that do not give their own." },
          },
          additionalProperties: false,
        },
      ],
    },
    BatchResult: {
      type: "object",
      description: "Each item is checked on its own: valid items are stored even when others fail.",
      required: ["summary", "results"],
      properties: {
        summary: {
          type: "object",
          required: ["total", "successful", "failed"],
          properties: {
            total: { type: "integer", minimum: 1, description: "Items submitted." },
            successful: { type: "integer", minimum: 0, description: "Items stored." },
            failed: { type: "integer", minimum: 0, description: "Items refused." },
          },
          additionalProperties: false,
        },
        results: {
          type: "array",
          description: "One per item, in the order submitted.",
          items: {
            oneOf: [
              {
                type: "object",
                required: ["success", "id"],
                properties: {
                  success: { const: true },
                  id: uuid("The memory stored, or the one already stored that answers a deduplicated item."),
                  deduplicated: { const: true, description: "Present when the item was deduplicated: nothing was stored for it." },
                },
                additionalProperties: false,
              },
              {
                type: "object",
                required: ["success", "error"],
                properties: {
                  success: { const: false },
                  error: {
                    type: "object",
                    required: ["code", "message"],
                    properties: {
                      code: { type: "string", examples: ["VALIDATION_ERROR"] },
                      message: { type: "string", examples: ["tags[0] must not be empty"] },
                    },
                    additionalProperties: false,
                  },
                },
                additionalProperties: false,
              },
            ],
          },
        },
      },
      additionalProperties: false,
    },
    ThreadStatus: {
      type: "string",
      enum: Object.values(ThreadStatus),
      description: "A thread is active until archived or completed.",
    },
    Thread: THREAD_SCHEMA,
    ThreadEnvelope: {
      type: "object",
      required: ["thread"],
      properties: { thread: ref("schemas", "Thread") },
      additionalProperties: false,
    },
    ThreadCreate: {
      type: "object",
      description: "A new thread; it starts active.",
      required: ["title"],
      properties: {
        title: threadText(MAX_TITLE_CHARS),
        description: { ...threadText(MAX_DESCRIPTION_CHARS), type: ["string", "null"] },
        metadata,
        ...ignored(["id", "created_at", "updated_at", "memory_count", "memories"]),
      },
      additionalProperties: false,
    },
    ThreadUpdate: {
      type: "object",
      description: "A partial update: fields not sent are kept; null clears description and metadata.",
      properties: {
        title: threadText(MAX_TITLE_CHARS),
        description: { ...threadText(MAX_DESCRIPTION_CHARS), type: ["string", "null"] },
        metadata,
        status: ref("schemas", "ThreadStatus"),
        ...ignored(["id", "created_at", "updated_at", "memory_count", "memories"]),
      },
      additionalProperties: false,
    },
    ThreadList: page("threads", ref("schemas", "Thread")),
    EventType: { type: "string", enum: [...EVENT_TYPES], description: "What changed." },
    Webhook: WEBHOOK_SCHEMA,
    WebhookCreated: {
      ...WEBHOOK_SCHEMA,
      description: "The webhook, with its signing secret (on creation, or a new one on rotation): shown this once.",
      required: [...WEBHOOK_SCHEMA.required!, "secret"],
      properties: {
        ...WEBHOOK_SCHEMA.properties,
        secret: {
          type: "string",
          pattern: "^whsec_",
          description: "Verifies each delivery's webhook-signature (Standard Webhooks). Keep it: it is not shown again.",
        },
      },
    },
    WebhookCreate: {
      type: "object",
      required: ["url"],
      properties: {
        url: {
          type: "string",
          maxLength: MAX_URL_CHARS,
          description: "An https URL on a public address (unless the server sets WEBHOOK_ALLOW_PRIVATE).",
        },
        events: { type: ["array", "null"], items: ref("schemas", "EventType"), description: "All of them when absent." },
        description: { type: ["string", "null"], maxLength: MAX_WEBHOOK_DESCRIPTION_CHARS },
      },
      additionalProperties: false,
    },
    WebhookDeliveryStatus: {
      type: "string",
      enum: Object.values(WebhookDeliveryStatus),
      description: "pending (to be sent, or retried), delivered, or failed (attempts run out, or the endpoint disabled).",
    },
    WebhookDelivery: DELIVERY_SCHEMA,
    WebhookDeliveryList: page("deliveries", ref("schemas", "WebhookDelivery")),
    WebhookList: {
      type: "object",
      required: ["webhooks"],
      properties: { webhooks: { type: "array", items: ref("schemas", "Webhook"), description: "Oldest first." } },
      additionalProperties: false,
    },
    Ok: {
      type: "object",
      required: ["ok"],
      properties: { ok: { const: true } },
      additionalProperties: false,
    },
    LegacyMemory: LEGACY_MEMORY_SCHEMA,
    LegacyMemoryCreate: {
      type: "object",
      description: "The deprecated create body. The owner is the API key's user whatever userId says.",
      required: ["workspaceId", "content"],
      properties: {
        workspaceId: {
          type: "string",
          minLength: 1,
          maxLength: MAX_LEGACY_ID_CHARS,
          description: "Scopes the legacy listing; trimmed, not blank.",
        },
        userId: {
          type: ["string", "null"],
          maxLength: MAX_LEGACY_ID_CHARS,
          description: "Accepted and echoed; never decides ownership.",
        },
        content,
        kind: { ...type, description: `The type, under its old name. ${type.description}` },
        ttlMinutes: { description: "No longer supported: accepted, ignored, and X-API-Warn says so." },
        ttl_expires_at: { description: "No longer supported: accepted, ignored, and X-API-Warn says so." },
      },
      additionalProperties: false,
    },
    LegacyMemoryList: page("memories", ref("schemas", "LegacyMemory")),
  };
}
