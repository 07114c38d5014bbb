import type { IncomingMessage } from "node:http";
import type { GraphQLSchema } from "graphql";
import type { ImportLine, ImportSummary } from "../../domain/import.ts";
import { isPlainObject } from "../../domain/json.ts";
import { AppError, invalid } from "../../errors.ts";
import { isJsonContentType, parseJsonBody, readBody } from "../../transport/body.ts";
import { NDJSON } from "../../transport/ndjson.ts";
import { restError } from "../errors.ts";
import { importLineOf, restImportResult } from "../export-wire.ts";
import { exportLines, importNdjson, type RestImportResult } from "../portability.ts";
import { boolParam, EXAMPLE_MEMORY, EXAMPLE_MEMORY_ID, type RouteDoc } from "../openapi/route-doc.ts";
import { ref } from "../openapi/types.ts";
import type { RestHandler, Router } from "../router.ts";

const exportDoc: RouteDoc = {
  operationId: "exportRecords",
  tag: "Export",
  summary: "Export threads and memories (NDJSON)",
  description:
    "Every thread and memory of yours as NDJSON (`application/x-ndjson`), streamed as it is read: one record a line, " +
    "`kind` (`thread` or `memory`) beside the record as the API shows it, with its id; threads first, each kind oldest " +
    "first. `history=true` adds each memory's versions, `embeddings=true` its vector (`{embedder, vector}`: the " +
    "embedder's id and the float32 little-endian values in base64; null when not embedded yet). A failure once the " +
    'stream has begun ends it with a line `{"kind":"error","error":{code,message}}`. POST /api/v1/import reads it back.',
  query: [
    boolParam("history", "Include each memory's history.", false),
    boolParam("embeddings", "Include each memory's vector and the embedder that made it.", false),
  ],
  success: {
    status: 200,
    contentType: NDJSON,
    description: "One JSON object a line.",
    schema: ref("schemas", "ExportLine"),
    example: { kind: "memory", ...EXAMPLE_MEMORY },
  },
};

/**
 * Sent uncompressed (no-transform: the compression middleware steps aside): the vectors' base64 hardly
 * compresses, and compressing line by line behind the socket's backpressure made a streamed export many times
 * slower than the socket allows.
 */
const EXPORT_HEADERS = { "content-disposition": 'attachment; filename="memories.ndjson"', "cache-control": "no-transform" };

/** GET /api/v1/export */
export const exportRecords: RestHandler = async ({ query, context }) => {
  query.only(["history", "embeddings"]);
  const options = { history: query.bool("history") === true, embeddings: query.bool("embeddings") === true };
  const lines = exportLines(context.services, context.principal.userId, options);
  return { status: 200, body: null, lines, headers: EXPORT_HEADERS };
};

const importDoc: RouteDoc = {
  operationId: "importRecords",
  tag: "Export",
  summary: "Import threads and memories",
  description:
    "Reads what GET /api/v1/export writes (`application/x-ndjson`, read line by line as it arrives: a line may hold " +
    "as much as a request body, the whole import MAX_IMPORT_BYTES), or a JSON array of memories (`application/json`, " +
    "bounded as any body). Idempotent by id: a record you hold already is `skipped` when it is the same and `updated` " +
    "when it differs; a record without an id is created under a new one. An id that another user's record has fails " +
    "its line (leave the id out to import the record under a new one). A memory keeps its exported vector when this " +
    "service's embedder made it, else it is embedded anew; its history starts anew. A thread must come before its " +
    "memories (as in an export). The answer has one result per record line, in order. Idempotency-Key is not needed " +
    "(and not replayed): importing the same file again changes nothing. The whole body must arrive within " +
    "HTTP_REQUEST_TIMEOUT_SECONDS, and the import stores as it reads: raise it for large files, or use `npm run import`.",
  body: {
    schema: ref("schemas", "ImportRequest"),
    contentTypes: [NDJSON, "application/json"],
    examples: {
      ndjson: {
        summary: "Lines of an export (shown here as a list)",
        value: [
          { kind: "thread", id: EXAMPLE_MEMORY_ID, title: "Trip to Porto", description: null, metadata: {}, status: "active" },
          { kind: "memory", ...EXAMPLE_MEMORY },
        ],
      },
      array: { summary: "Plain memories", value: [{ content: "Works from Lisbon", type: "observation" }] },
    },
  },
  success: {
    status: 200,
    description: "How many records were created, updated, skipped and failed, and the result of each line.",
    schema: ref("schemas", "ImportResult"),
    example: {
      created: 1,
      updated: 0,
      skipped: 0,
      failed: 1,
      results: [
        { line: 1, kind: "memory", id: EXAMPLE_MEMORY_ID, status: "created" },
        { line: 2, kind: null, id: null, status: "failed", error: { code: "INVALID_JSON", message: "The line is not valid JSON" } },
      ],
    },
  },
  errors: {
    PAYLOAD_TOO_LARGE: {
      when:
        "The body is over MAX_IMPORT_BYTES (NDJSON) or MAX_BODY_BYTES (a JSON array). NDJSON sent without Content-Length " +
        "is read until it passes the limit: the answer then also lists the lines read before (summary and results, as a 200's).",
      example: "The request body must be at most 1073741824 bytes",
    },
  },
};

/** The items of a JSON import: a bare array, or {"memories": [...]}; numbered from 1. */
async function* arrayItems(req: IncomingMessage, maxBytes: number, schema: GraphQLSchema): AsyncGenerator<ImportLine> {
  const body = parseJsonBody(req, await readBody(req, maxBytes));
  const items = Array.isArray(body) ? body : isPlainObject(body) && Array.isArray(body.memories) ? body.memories : undefined;
  if (!items) throw invalid("body", 'must be NDJSON lines, an array of records, or {"memories": [...]}');
  for (const [index, value] of items.entries()) yield importLineOf(index + 1, () => value, schema);
}

/** POST /api/v1/import */
export const importRecords: RestHandler = async ({ req, query, schema, context }) => {
  query.only([]);
  const { imports } = context.services;
  const limits = imports.readLimits;
  const type = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  const results: RestImportResult[] = [];
  const author = { userId: context.principal.userId, keyId: context.principal.keyId };
  let summary: ImportSummary;
  if (type === NDJSON) {
    if (Number(req.headers["content-length"]) > limits.maxTotalBytes) {
      throw new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${limits.maxTotalBytes} bytes`);
    }
    try {
      summary = await importNdjson(context.services, schema, author, req, (result) => results.push(result));
    } catch (error) {
      // the import stores as it reads: a body sent without Content-Length that passes the limit is stopped there,
      // and the lines stored before it are listed, as a 200 would list them (their retry skips them)
      if (!(error instanceof AppError) || error.code !== "PAYLOAD_TOO_LARGE") throw error;
      const stopped = { created: 0, updated: 0, skipped: 0, failed: 0 };
      for (const { status } of results) stopped[status]++;
      const where = results.length ? `after the ${results.length} lines that results lists` : "before any line was stored";
      const message = `${error.message}: the import stopped there, ${where}`;
      return { status: 413, body: { error: restError({ code: error.code, message }), ...stopped, results } };
    }
  } else if (isJsonContentType(req)) {
    const items = arrayItems(req, limits.maxLineBytes, schema);
    summary = await imports.import(author, items, (result) => results.push(restImportResult(result)));
  } else {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", `The body must be ${NDJSON} (an export) or application/json (an array of memories)`);
  }
  return { status: 200, body: { ...summary, results } };
};

export function addExportRoutes(router: Router): void {
  router
    .add("GET", "/api/v1/export", exportRecords, { doc: exportDoc, streaming: true })
    .add("POST", "/api/v1/import", importRecords, { doc: importDoc, streaming: true });
}
