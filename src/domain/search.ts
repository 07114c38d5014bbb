import type { Principal } from "./principal.ts";
import type { Limits } from "../config.ts";
import type { Database } from "../db/database.ts";
import { AppError, invalid } from "../errors.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { embedderLate, type Embedder } from "../embeddings/embedder.ts";
import { RecentVectors } from "../embeddings/recent-vectors.ts";
import { waitAtMost } from "./wait-at-most.ts";
import { cosine, storedToVector } from "../vectors/codec.ts";
import { ExactIndex } from "../vectors/exact.ts";
import { checkFilterThreadId, checkMemoryFilter, type MemoryFilterInput } from "./memory-filter.ts";
import { VectorIndexUnavailable, type VectorFilter, type VectorHit, type VectorIndex } from "../vectors/vector-index.ts";
import { blendScores } from "./fusion.ts";
import type { WordMatches } from "./lexical.ts";
import { searchWords } from "./sql-terms.ts";
import type { TermStats } from "./term-stats.ts";
import { LiveRows } from "./live-rows.ts";
import { selecting, type Memory, type MemoryQuery } from "./memory.ts";
import { checkContentText, checkTags, checkType } from "./memory-input.ts";
import { MEMORY_JSON_COLUMNS, memoriesFromJson } from "./memory-rows.ts";
import { checkPage } from "./paging.ts";
import type { TermIndex } from "./term-index.ts";

export const DEFAULT_SEARCH_LIMIT = 10;
// how deep each list is read before blending
const DEPTH = 100;
// when a search that its embedder or vector index failed is worth sending again: the database's 503s carry one too,
// these came without (outside probe)
const RETRY_SHORTLY = { "retry-after": "5" };
// fused hits read beyond the page, in case some are gone from the database by now; with a filter, all of them,
// as BM25's list is not filtered by type, tags or date before the rows are
const SLACK = 10;
// live-row reads at once on the embedded database (live-rows.ts): the reads that arrive meanwhile go together after
const EMBEDDED_LIVE_READS_IN_FLIGHT = 1;
// the query vectors kept (RecentVectors): 8 MB, 4 096 of the sentence encoder's, 1 365 of text-embedding-3-small's
const RECENT_QUERY_FLOATS = 2 ** 21;

export interface SearchFilter extends Pick<MemoryFilterInput, "and" | "or" | "not" | "metadata" | "threadId"> {
  type?: string | null;
  tags?: readonly string[] | null;
  fromDate?: Date | null;
  toDate?: Date | null;
}

export interface ScoredMemory {
  memory: Memory;
  /** 0 to 1: BM25's share of the memory's BM25 score over the query's weight, plus the rest of its cosine. */
  score: number;
}

/**
 * Topic lookup: the memories nearest the query by meaning (sentence vectors) blended with those that share its
 * words (BM25), so that a word only one memory holds finds it first and a memory whose vector has not landed
 * yet is found by its words.
 */
export class SearchService {
  private readonly matchingIndex: ExactIndex;
  private readonly liveRows: LiveRows;
  private readonly recentQueries = new RecentVectors(RECENT_QUERY_FLOATS);

  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly index: VectorIndex,
    private readonly limits: Limits,
    exactSearchMaxMemories: number,
    /** How long a search waits for its query's vector (EMBEDDER_WAIT_MS) before answering 503. */
    private readonly queryWaitMs: number,
    /** document frequencies for BM25 in SQL, kept between writes */
    private readonly termStats: TermStats,
    /** the embedded database's copy of users' terms (term-index.ts), which BM25 reads when it has the user's */
    private readonly terms?: TermIndex,
  ) {
    this.matchingIndex = new ExactIndex(db.sql, exactSearchMaxMemories);
    // PostgreSQL's pool runs statements side by side, and a statement's fixed cost there is a round trip, not
    // CPU of this process: reads go at once, each alone
    this.liveRows = new LiveRows(db.sql, db.kind === "pglite" ? EMBEDDED_LIVE_READS_IN_FLIGHT : Infinity);
  }

  /** The filter as the index takes it; invalid values are the caller's error. */
  vectorFilter(principal: Principal, filter: SearchFilter, threadId?: string): VectorFilter {
    const result: VectorFilter = { userId: principal.userId };
    if (filter.type != null) result.type = checkType(filter.type);
    if (filter.tags?.length) result.tags = checkTags(filter.tags, this.limits);
    if (filter.fromDate) result.fromDate = filter.fromDate;
    if (filter.toDate) result.toDate = filter.toDate;
    if (result.fromDate && result.toDate && result.fromDate > result.toDate) {
      throw invalid("fromDate", "must not be after the end of the date range");
    }
    // the filter's thread is the index's own thread condition, unless recall's thread takes that place
    if (threadId !== undefined) result.threadId = threadId;
    else if (filter.threadId != null) result.threadId = checkFilterThreadId(filter.threadId, "threadId");
    const { and, or, not, metadata } = filter;
    const where = checkMemoryFilter({ and, or, not, metadata, ...(threadId !== undefined && { threadId: filter.threadId }) });
    if (where) result.where = where;
    return result;
  }

  /** The embedding of a user's query (the user's recent ones remembered); 503 when the embedder cannot be reached. */
  async embedQuery(userId: string, query: string): Promise<Float32Array> {
    try {
      const embed = async (text: string) => (await this.embedder.embed([text]))[0]!;
      return await waitAtMost(this.recentQueries.of(userId, query, embed), this.queryWaitMs, embedderLate);
    } catch (error) {
      throw new AppError("SERVICE_UNAVAILABLE", "The embedding service is unavailable; try again shortly", { cause: error, headers: RETRY_SHORTLY });
    }
  }

  /** The nearest points of the index to a query vector; 503 when the index cannot be reached. */
  async nearest(vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    try {
      // boolean logic and metadata that the index cannot evaluate: such a search compares the stored vectors of
      // the newest matching memories, as the exact index does (bounded by EXACT_SEARCH_MAX_MEMORIES)
      const index = filter.where && !this.index.searchesWhere(this.embedder.id) ? this.matchingIndex : this.index;
      return await index.search(this.embedder.id, vector, filter, limit);
    } catch (error) {
      if (!(error instanceof VectorIndexUnavailable)) throw error;
      throw new AppError("SERVICE_UNAVAILABLE", "The vector index is unavailable; try again shortly", { cause: error, headers: RETRY_SHORTLY });
    }
  }

  checkQuery(query: string): string {
    return checkContentText(query, this.limits, "query").trim();
  }

  async search(
    principal: Principal,
    query: string,
    limit: number | null | undefined,
    filter: SearchFilter,
    memoryQuery: MemoryQuery = {},
  ): Promise<ScoredMemory[]> {
    const text = this.checkQuery(query);
    const page = checkPage(limit, 0, DEFAULT_SEARCH_LIMIT);
    const vectorFilter = this.vectorFilter(principal, filter);
    const embedding = this.embedQuery(principal.userId, text);
    const [words, nearest] = await Promise.all([
      this.words(principal.userId, text),
      embedding.then((vector) => this.nearest(vector, vectorFilter, DEPTH)),
    ]);
    const semantic = [...nearest, ...(await this.similarities(principal.userId, await embedding, words.hits, nearest))];
    const filtered = Object.keys(vectorFilter).length > 1;
    const hits = blendScores(words.hits, words.weight, semantic).slice(0, filtered ? undefined : page.limit + SLACK);
    const memories = await this.live(vectorFilter, hits.map((hit) => hit.id), memoryQuery, page.limit);
    return hits
      .filter((hit) => memories.has(hit.id))
      .slice(0, page.limit)
      .map((hit) => ({ memory: memories.get(hit.id)!, score: hit.relevance }));
  }

  /** BM25's best DEPTH: from the user's terms copied into this process, else (and while it is made) in SQL. */
  private async words(userId: string, text: string): Promise<WordMatches> {
    const copy = await this.terms?.of(userId);
    return copy ? copy.searchWords(text, DEPTH) : searchWords(this.db, this.termStats, userId, text, DEPTH);
  }

  /**
   * The cosine similarity of the query and each lexical hit the vector index did not return: among thousands of
   * near-identical memories the one holding a rare query word may be beyond the index's first DEPTH, and
   * scored by its words alone it would lose to them. From the index where it holds the vectors in this process
   * (a read of ~60 vectors cost the embedded database ~2 ms a search), else from the vectors stored with the memories.
   */
  private async similarities(
    userId: string,
    vector: Float32Array,
    lexical: readonly { id: string }[],
    nearest: readonly VectorHit[],
  ): Promise<VectorHit[]> {
    const known = new Set(nearest.map((hit) => hit.id));
    const missing = lexical.filter((hit) => !known.has(hit.id)).map((hit) => hit.id);
    if (missing.length === 0) return [];
    // a vector the index does not hold yet is not found by meaning either: the memory is scored by its words
    if (this.index.scores) return this.index.scores(this.embedder.id, userId, vector, missing);
    const rows = await this.db.sql.query<{ id: string; embedding: Uint8Array }>(
      "SELECT id, embedding FROM memories WHERE id = ANY($1::uuid[]) AND embedder = $2 AND embedding IS NOT NULL",
      [missing, this.embedder.id],
    );
    return rows.map((row) => ({ id: row.id, score: cosine(vector, storedToVector(row.embedding)) }));
  }

  /**
   * The database's word on the hits: the index may briefly hold a memory that was deleted, archived or
   * changed, and holds expired ones until the sweeper takes them out, so the filter is applied again to the rows
   * themselves. Only the first `keep` of the ids that pass are read.
   */
  async live(filter: VectorFilter, ids: readonly string[], memoryQuery: MemoryQuery = {}, keep = ids.length): Promise<Map<string, Memory>> {
    if (ids.length === 0) return new Map();
    // Rows GraphQL reads no relation of are read here whole; others through Prisma, which loads relations.
    const plain = !memoryQuery.include && Object.values(memoryQuery.select ?? {}).every((field) => field === true);
    const text = await this.liveRows.read({ filter, ids, keep, columns: plain ? MEMORY_JSON_COLUMNS : "id" });
    if (plain) return new Map(memoriesFromJson(text).map((memory) => [memory.id, memory]));
    const passing = text === null ? [] : (JSON.parse(text) as { id: string }[]);
    if (passing.length === 0) return new Map();
    const where: Prisma.MemoryWhereInput = { id: { in: passing.map((row) => row.id) } };
    const rows = await this.db.prisma.memory.findMany({ ...selecting(memoryQuery, "id"), where });
    return new Map(rows.map((row) => [row.id, row]));
  }
}
