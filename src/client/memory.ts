import { MemoryServiceError } from "./errors.ts";
import { idPath, newId } from "./ids.ts";
import { PageRequest } from "./page.ts";
import { listIn } from "./shape.ts";
import type { CallOptions, Transport } from "./transport.ts";
import type {
  BatchItemResult,
  BatchResult,
  CreatedMemory,
  CreateMemoryInput,
  ListMemoriesParams,
  Memory,
  MemoryFilter,
  MemoryPage,
  RecallParams,
  RecallResponse,
  RecallResult,
  ReplaceMemoryInput,
  SearchParams,
  SearchResponse,
  SearchResult,
  UpdateMemoryInput,
} from "./types.ts";

/** The server takes at most this many items per batch request. */
export const BATCH_LIMIT = 100;

type WireSearchResult = Omit<SearchResult, "relevance_score">;
type WireRecallResult = Omit<RecallResult, "relevance_score">;

/** `client.memories`: the memory routes. */
export class Memories {
  constructor(private readonly transport: Transport) {}

  /** POST /api/v1/memory. Retries send the same Idempotency-Key, so a lost response does not store twice. */
  async create(input: CreateMemoryInput, options: CallOptions = {}): Promise<CreatedMemory> {
    return this.transport.request({ method: "POST", path: "/api/v1/memory", body: wireBody(input), idempotencyKey: newId(), signal: options.signal });
  }

  async get(id: string, options: CallOptions = {}): Promise<Memory> {
    return this.transport.request({ method: "GET", path: memoryPath(id), signal: options.signal });
  }

  /** PATCH: changes what is given, keeps the rest; `null` clears a field. */
  async update(id: string, input: UpdateMemoryInput, options: CallOptions = {}): Promise<Memory> {
    return this.transport.request({ method: "PATCH", path: memoryPath(id), body: wireBody(input), signal: options.signal });
  }

  /** PUT: sets every writable field; the ones left out go back to their defaults. */
  async replace(id: string, input: ReplaceMemoryInput, options: CallOptions = {}): Promise<Memory> {
    return this.transport.request({ method: "PUT", path: memoryPath(id), body: wireBody(input), signal: options.signal });
  }

  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.transport.request({ method: "DELETE", path: memoryPath(id), signal: options.signal });
  }

  /** GET /api/v1/memory: await for one page, `for await` for every memory across pages (each under `options`). */
  list(params: ListMemoriesParams = {}, options: CallOptions = {}): PageRequest<MemoryPage, Memory> {
    const { offset, cursor, filter, tags, ...rest } = params;
    // a list in a query string is comma-separated: a tag holding a comma travels in the filter's JSON
    const split = tags?.some((tag) => tag.includes(",")) ? { tags } : {};
    const query = { ...rest, tags: "tags" in split ? undefined : tags, filter: filterParam(withinFilter(filter, split)) };
    return new PageRequest(
      (at) => this.transport.request<MemoryPage>({ method: "GET", path: "/api/v1/memory", query: { ...query, ...at }, signal: options.signal }),
      (page) => listIn(page, "memories"),
      { offset, cursor },
    );
  }

  async search(params: SearchParams, options: CallOptions = {}): Promise<SearchResponse> {
    // POSTed: a long query fits no URL (the server refuses request lines over 16 KB), and a tag may hold a comma
    const { query, limit, filter, ...simple } = params;
    const response = await this.transport.request<{ results: WireSearchResult[]; total: number }>({
      method: "POST",
      path: "/api/v1/memory/search",
      body: { query, limit, filter: withinFilter(filter, simple) },
      signal: options.signal,
    });
    const results = listIn<WireSearchResult>(response, "results");
    return { ...response, results: results.map((result) => ({ ...result, relevance_score: result.score })) };
  }

  async recall(params: RecallParams, options: CallOptions = {}): Promise<RecallResponse> {
    const response = await this.transport.request<Omit<RecallResponse, "results"> & { results: WireRecallResult[] }>({
      method: "POST",
      path: "/api/v1/memory/recall",
      body: params,
      signal: options.signal,
    });
    const results = listIn<WireRecallResult>(response, "results");
    return { ...response, results: results.map((result) => ({ ...result, relevance_score: result.relevance })) };
  }

  /**
   * POST /api/v1/memory/batch, in requests of at most 100 items sent one after another; the results are
   * merged in input order. A request the server finds too large (413: its body past the server's MAX_BODY_BYTES,
   * though each item is within its limits) is sent again as two halves. A request that fails as a whole (after its
   * retries) marks each of its items failed with its error code and the others go on, since the items of the
   * other requests may have been stored; when every request fails, the call rejects with the first error, as a
   * single request would. An aborted `options.signal` ends the call (ABORTED) rather than failing the rest item by item.
   */
  async batchCreate(inputs: CreateMemoryInput[], options: CallOptions = {}): Promise<BatchResult> {
    const bodies = inputs.map(wireBody); // a malformed item fails the call before anything is sent
    const outcome: BatchOutcome = { merged: { summary: { total: 0, successful: 0, failed: 0 }, results: [] }, answered: false };
    for (let start = 0; start < bodies.length; start += BATCH_LIMIT) await this.sendBatch(bodies.slice(start, start + BATCH_LIMIT), outcome, options);
    if (outcome.firstError && !outcome.answered) throw outcome.firstError;
    return outcome.merged;
  }

  /** One request of a batch, its results (or its failure, item by item) added to `outcome`. */
  private async sendBatch(memories: Record<string, unknown>[], outcome: BatchOutcome, options: CallOptions): Promise<void> {
    let part: BatchResult;
    try {
      part = await this.transport.request<BatchResult>({ method: "POST", path: "/api/v1/memory/batch", body: { memories }, idempotencyKey: newId(), signal: options.signal });
      outcome.answered = true;
    } catch (error) {
      if (!(error instanceof MemoryServiceError) || error.code === "ABORTED") throw error;
      if (error.code === "PAYLOAD_TOO_LARGE" && memories.length > 1) {
        const half = Math.ceil(memories.length / 2);
        await this.sendBatch(memories.slice(0, half), outcome, options);
        await this.sendBatch(memories.slice(half), outcome, options);
        return;
      }
      outcome.firstError ??= error;
      const failed = (): BatchItemResult => ({ success: false, error: { code: error.code, message: error.message } });
      part = { summary: { total: memories.length, successful: 0, failed: memories.length }, results: memories.map(failed) };
    }
    const { summary, results } = outcome.merged;
    summary.total += part.summary.total;
    summary.successful += part.summary.successful;
    summary.failed += part.summary.failed;
    results.push(...part.results);
  }
}

/** A batch's requests so far: their merged results, whether any was answered, the first that failed whole. */
interface BatchOutcome {
  merged: BatchResult;
  answered: boolean;
  firstError?: MemoryServiceError;
}

/** A filter travels in the query string as JSON. */
const filterParam = (filter: WireFilter | undefined) => (filter === undefined ? undefined : JSON.stringify(filter));

/** A filter as sent: a search's also holds its dates. */
type WireFilter = MemoryFilter | Record<string, unknown>;

/** `filter` with conditions given as their own parameters (`simple`); a field named by both must hold in both. */
function withinFilter(filter: MemoryFilter | undefined, simple: Record<string, unknown>): WireFilter | undefined {
  const given = Object.fromEntries(Object.entries(simple).filter(([, value]) => value !== undefined));
  if (Object.keys(given).length === 0) return filter;
  if (filter === undefined) return given;
  return Object.keys(given).some((key) => key in filter) ? { and: [filter, given] } : { ...filter, ...given };
}

const memoryPath = (id: string) => idPath("/api/v1/memories", id);

/** The request body of a write: `data` travels as `content`, the rest as it is. */
function wireBody(input: CreateMemoryInput | UpdateMemoryInput | ReplaceMemoryInput): Record<string, unknown> {
  const { data, ...fields } = input;
  if (data === undefined) return fields;
  if (fields.content !== undefined) {
    throw new MemoryServiceError("VALIDATION_ERROR", "Give content or data, not both", { attempts: 0 });
  }
  return { ...fields, content: data };
}
