import { MemoryServiceError } from "./errors.ts";
import { newRecordId } from "./ids.ts";
import type { CallOptions, Transport } from "./transport.ts";
import type { ExportParams, ExportRecord, ImportRecord, ImportResult } from "./types.ts";

type ExportLine = ExportRecord | { kind: "error"; error: { code: string; message: string } };

/** `client.records`: every thread and memory of the key's user, out (export) and back in (import). */
export class Records {
  constructor(private readonly transport: Transport) {}

  /**
   * GET /api/v1/export: threads first, then memories, each as the API shows it with `kind`. Read whole, within
   * `timeoutMs`: for a large account, read the route as a stream yourself, or use `npm run export`.
   */
  async export(params: ExportParams = {}, options: CallOptions = {}): Promise<ExportRecord[]> {
    const lines = await this.transport.request<ExportLine[]>({ method: "GET", path: "/api/v1/export", query: { ...params }, ndjsonAnswer: true, signal: options.signal });
    const failure = lines.find((line) => line.kind === "error");
    // the server failed after it had begun to send
    if (failure) throw new MemoryServiceError(failure.error.code, failure.error.message, { attempts: 1 });
    return lines as ExportRecord[];
  }

  /**
   * POST /api/v1/import, as NDJSON. Idempotent by id (a record held already is skipped, or replaced when it
   * differs), so it is retried like any read. A record without an id is given one here, the same on every attempt:
   * sent without, it was stored anew by each attempt, twice when an answer was lost. Its line's result names it.
   */
  import(records: readonly ImportRecord[], options: CallOptions = {}): Promise<ImportResult> {
    const lines = records.map((record) => (record.id === undefined ? { ...record, id: newRecordId() } : record));
    return this.transport.request<ImportResult>({ method: "POST", path: "/api/v1/import", lines, signal: options.signal });
  }
}
