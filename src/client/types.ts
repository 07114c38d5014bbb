// The service's resources as its REST routes send them. Field names are snake_case, inputs included, so
// that what a caller writes is what travels on the wire and what the API documentation shows.

/** A JSON object: metadata, or the structured record of a memory. */
export type JsonObject = { [key: string]: unknown };

/** A memory's content: text, or a structured record (returned as the same object). */
export type MemoryContent = string | JsonObject;

export type ThreadStatus = "active" | "archived" | "completed";

export interface Memory {
  id: string;
  content: MemoryContent;
  type: string | null;
  tags: string[];
  metadata: JsonObject;
  thread_id: string | null;
  is_archived: boolean;
  /** When it expires (ISO 8601 UTC); null: never. From then on the service shows it nowhere. */
  expires_at: string | null;
  /** ISO 8601 UTC. */
  created_at: string;
  updated_at: string;
}

/** The create response: the memory, with `ok: true`; `deduplicated: true` when it is one you already had. */
export interface CreatedMemory extends Memory {
  ok: true;
  deduplicated?: true;
}

/**
 * The content of a write: `content` (text or object), or `data`, an object sent as `content`. Giving both is
 * an error.
 */
export type ContentInput = { content: MemoryContent; data?: undefined } | { data: JsonObject; content?: undefined };

export interface MemoryFields {
  /** Archived memories stay listed (is_archived filters them) but are left out of search and recall. */
  is_archived?: boolean;
  /** Known values: preference, observation, journal, task, insight. */
  type?: string | null;
  tags?: string[] | null;
  metadata?: JsonObject | null;
  thread_id?: string | null;
  /** When it expires (ISO 8601 with a time zone, in the future); null: never (PATCH: clears it). Not with ttl_seconds. */
  expires_at?: string | null;
  /** Expire it this many seconds from now (at most ten years). Not with expires_at. */
  ttl_seconds?: number | null;
}

export type CreateMemoryInput = ContentInput &
  MemoryFields & {
    /** true: answer a memory you already have with this content, type and thread instead of storing a copy. */
    dedupe?: boolean;
  };

/** PATCH: what is sent changes, what is left out stays; `null` clears a field. */
export type UpdateMemoryInput = (ContentInput | { content?: undefined; data?: undefined }) & MemoryFields;

/** PUT: every writable field; what is left out goes back to its default. */
export type ReplaceMemoryInput = ContentInput & MemoryFields;

/** A scalar a metadata condition compares: ranges compare numbers, or ISO 8601 dates given as strings. */
export type MetadataScalar = string | number | boolean;

/**
 * A test of the values at `path` (dot-separated keys) in a memory's metadata; an array there passes when one
 * of its elements does. Give one test: `eq`, `in`, a range (`gt`, `gte`, `lt`, `lte`) or `exists`.
 */
export interface MetadataCondition {
  path: string;
  eq?: MetadataScalar;
  in?: MetadataScalar[];
  gt?: number | string;
  gte?: number | string;
  lt?: number | string;
  lte?: number | string;
  /** true: a value other than null is there; false: none is. */
  exists?: boolean;
}

/**
 * A filter with boolean logic and metadata conditions (sent as the `filter` parameter): every field of one
 * object must hold; `and`, `or` and `not` combine filters. They nest at most 5 levels deep; at most 32 conditions.
 */
export interface MemoryFilter {
  type?: string;
  /** Every one of these tags. */
  tags?: string[];
  thread_id?: string;
  metadata?: MetadataCondition[];
  and?: MemoryFilter[];
  or?: MemoryFilter[];
  not?: MemoryFilter;
}

export interface ListMemoriesParams {
  /** Page size: default 20, at most 100. */
  limit?: number;
  offset?: number;
  /** The `next_cursor` of an earlier page: the page after it, which memories added meanwhile do not shift. Not with `offset`. */
  cursor?: string;
  /** Conditions beyond the simple parameters; a field may not be given both here and as its own parameter. */
  filter?: MemoryFilter;
  type?: string;
  /** Matches memories that carry every listed tag. */
  tags?: string[];
  thread_id?: string;
  /** true: only archived; false: only live; absent: both. */
  is_archived?: boolean;
}

export interface MemoryPage {
  memories: Memory[];
  total: number;
  limit: number;
  /** null for a page asked for by cursor. */
  offset: number | null;
  has_more: boolean;
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export interface SearchParams {
  query: string;
  limit?: number;
  type?: string;
  tags?: string[];
  /** ISO 8601 timestamp, or a Date (sent as ISO 8601). */
  from_date?: string | Date;
  to_date?: string | Date;
  filter?: MemoryFilter;
}

/** What a search or a recall result shows of the memory it found. */
interface FoundMemory {
  id: string;
  content: MemoryContent;
  type: string | null;
  tags?: string[];
  metadata?: JsonObject;
  thread_id?: string | null;
  is_archived?: boolean;
  expires_at?: string | null;
  created_at?: string;
  updated_at?: string;
}

export interface SearchResult extends FoundMemory {
  /** The relevance as the route sends it. */
  score: number;
  /** The same value as `score`, under the name the client library documents. */
  relevance_score: number;
}

export interface SearchResponse {
  results: SearchResult[];
  total: number;
}

export interface RecallParams {
  query: string;
  limit?: number;
  /** Scopes the lexical part of recall to one thread. */
  thread_id?: string;
  filter?: MemoryFilter;
}

export interface RecallResult extends FoundMemory {
  relevance: number;
  /** The same value as `relevance`, so that search and recall results read alike. */
  relevance_score: number;
}

export interface RecallResponse {
  results: RecallResult[];
  total: number;
  /** How recall answered the query (e.g. the profile fast path or a hybrid search). */
  query_type: string;
}

export interface BatchItemResult {
  success: boolean;
  /** Present when success is true. */
  id?: string;
  /** Present (true) when the item was one you already had: `id` is that memory's. */
  deduplicated?: true;
  /** Present when success is false. */
  error?: { code?: string; message: string };
}

export interface BatchResult {
  summary: { total: number; successful: number; failed: number };
  /** One entry per submitted item, in input order. */
  results: BatchItemResult[];
}

export interface Thread {
  id: string;
  title: string;
  description: string | null;
  metadata: JsonObject;
  status: ThreadStatus;
  created_at: string;
  updated_at: string;
  memory_count?: number;
}

export interface CreateThreadInput {
  title: string;
  description?: string | null;
  metadata?: JsonObject | null;
}

export interface UpdateThreadInput {
  title?: string;
  description?: string | null;
  metadata?: JsonObject | null;
  status?: ThreadStatus;
}

export interface ListThreadsParams {
  limit?: number;
  offset?: number;
  status?: ThreadStatus;
}

export interface ThreadPage {
  threads: Thread[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

export interface GetThreadParams {
  /** Adds `thread.memories`. */
  include_memories?: boolean;
  /** How many memories to include. */
  limit?: number;
}

export interface ThreadWithMemories extends Thread {
  /** Present when include_memories was true. */
  memories?: Memory[];
}

export interface GetThreadResponse {
  thread: ThreadWithMemories;
}

export interface DeleteThreadParams {
  /** true: delete the thread's memories too; otherwise they stay, without a thread_id. */
  delete_memories?: boolean;
}

export interface ExportParams {
  /** Add each memory's history (its versions, oldest first). */
  history?: boolean;
  /** Add each memory's vector and the embedder that made it, so that an import into the same embedder need not embed. */
  embeddings?: boolean;
}

/** A version of a memory's history: the memory before and after a change. */
export interface MemoryVersion {
  version: number;
  /** created, updated, archived, unarchived or deleted. */
  action: string;
  changed_at: string;
  key_id: string | null;
  key_name: string | null;
  before: Memory | null;
  after: Memory | null;
}

export interface ExportedThread extends Thread {
  kind: "thread";
}

export interface ExportedMemory extends Memory {
  kind: "memory";
  history?: MemoryVersion[];
  /** The embedder's id (model and dimensions) and the float32 little-endian vector in base64; null: not embedded yet. */
  embedding?: { embedder: string; vector: string } | null;
}

/** One line of an export. */
export type ExportRecord = ExportedThread | ExportedMemory;

/** What an import takes: export lines, or plain memories (a new id each, unless they carry one). */
export type ImportRecord =
  | ExportRecord
  | (MemoryFields & { content: MemoryContent; id?: string; is_archived?: boolean; created_at?: string; updated_at?: string });

export interface ImportLineResult {
  /** The record's place in the list, from 1. */
  line: number;
  kind: "thread" | "memory" | null;
  id: string | null;
  status: "created" | "updated" | "skipped" | "failed";
  error?: { code: string; message: string };
}

export interface ImportResult {
  created: number;
  /** Records held already, different in the import. */
  updated: number;
  /** Records held already, the same in the import. */
  skipped: number;
  failed: number;
  results: ImportLineResult[];
}
