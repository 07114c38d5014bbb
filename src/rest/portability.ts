import type { GraphQLSchema } from "graphql";
import type { ExportOptions } from "../domain/export.ts";
import type { ImportLine, ImportSummary } from "../domain/import.ts";
import type { Author } from "../domain/principal.ts";
import type { Services } from "../domain/services.ts";
import { ndjsonLines, type BodyLine } from "../transport/ndjson.ts";
import { exportLine, importLineOf, restImportResult } from "./export-wire.ts";

export type RestImportResult = ReturnType<typeof restImportResult>;

/** A user's records as the lines of an export (see export-wire.ts), read a page at a time. */
export async function* exportLines(services: Services, userId: string, options: ExportOptions): AsyncGenerator<object> {
  for await (const item of services.exports.export(userId, options)) yield exportLine(item);
}

/** The lines of an NDJSON import, each read into an import item (or the reason it cannot be). */
export async function* ndjsonItems(lines: AsyncIterable<BodyLine>, schema: GraphQLSchema): AsyncGenerator<ImportLine> {
  for await (const entry of lines) yield "error" in entry ? entry : importLineOf(entry.line, () => JSON.parse(entry.text), schema);
}

/** Reads an NDJSON export into `author`'s account as it arrives; `onResult` hears of each line, in order. */
export function importNdjson(
  services: Services,
  schema: GraphQLSchema,
  author: Author,
  body: AsyncIterable<Uint8Array>,
  onResult: (result: RestImportResult) => void,
): Promise<ImportSummary> {
  const lines = ndjsonItems(ndjsonLines(body, services.imports.readLimits), schema);
  return services.imports.import(author, lines, (result) => onResult(restImportResult(result)));
}

/**
 * Export and import as the operator runs them (`npm run export`, `npm run import`): for a user named by id or
 * handle, with no API key (the history records the import as made outside the API).
 */
export interface Portability {
  exportLines(user: string, options: ExportOptions): AsyncIterable<object>;
  importNdjson(user: string, body: AsyncIterable<Uint8Array>, onResult: (result: RestImportResult) => void): Promise<ImportSummary>;
}

export function portability(services: Services, schema: GraphQLSchema): Portability {
  return {
    async *exportLines(user, options) {
      const { id } = await services.users.find(user);
      yield* exportLines(services, id, options);
    },
    async importNdjson(user, body, onResult) {
      const { id } = await services.users.find(user);
      return importNdjson(services, schema, { userId: id, keyId: null }, body, onResult);
    },
  };
}
