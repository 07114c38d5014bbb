import type { FilterClause } from "./filter-clause.ts";

/**
 * An index that lives elsewhere (Qdrant) did not answer as it should: a search meanwhile is 503, not 500. The
 * message names the server, for the log; what the client sees is said by the search.
 */
export class VectorIndexUnavailable extends Error {}

/** What the index keeps of a memory: its vector and the fields searches filter on. */
export interface VectorPoint {
  id: string;
  userId: string;
  vector: Float32Array;
  type: string | null;
  tags: string[];
  threadId: string | null;
  isArchived: boolean;
  createdAt: Date;
  /** The memory's metadata (a JSON object): an index that evaluates metadata conditions itself keeps it. */
  metadata: unknown;
  /** The memory's updated_at in ms: which state of the memory the point holds. */
  version: number;
}

/** The fields of a point that searches filter on, under the names the SQL and Qdrant indexes store them by. */
export const filterFields = (p: VectorPoint) => ({
  user_id: p.userId,
  type: p.type,
  tags: p.tags,
  thread_id: p.threadId,
  is_archived: p.isArchived,
  created_at: p.createdAt.toISOString(),
});

/** Every search is one user's; the other conditions narrow it. Archived memories are never returned. */
export interface VectorFilter {
  userId: string;
  type?: string;
  /** Memories carrying every one of these tags. */
  tags?: string[];
  threadId?: string;
  fromDate?: Date;
  toDate?: Date;
  /** Boolean logic and metadata conditions: for indexes whose `searchesWhere` says so (SearchService routes the rest). */
  where?: FilterClause;
}

export interface VectorHit {
  id: string;
  /** Cosine similarity, -1 to 1. */
  score: number;
}

/**
 * A searchable copy of the memories' vectors. The database is the source of truth: an index can be emptied
 * and rebuilt from it at any time (`npm run reindex`), and vectors of different embedders live apart, keyed
 * by the embedder's id, so that no search ever compares them.
 */
export interface VectorIndex {
  /** "pgvector", "qdrant" or "exact", for logs and /readyz. */
  readonly kind: string;
  /** Makes room for an embedder's vectors (idempotent). */
  ensure(embedderId: string, dimensions: number): Promise<void>;
  /** Inserts or replaces points (idempotent). */
  upsert(embedderId: string, points: readonly VectorPoint[]): Promise<void>;
  delete(embedderId: string, ids: readonly string[]): Promise<void>;
  /**
   * Whether `search` evaluates `filter.where` for this embedder's vectors; when it cannot, SearchService answers
   * such searches with the exact scan instead.
   */
  searchesWhere(embedderId: string): boolean;
  /** The nearest points first, at most `limit`. */
  search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]>;
  /**
   * The cosine of the query with each of these points of the user's that the index holds in this process (ids it
   * does not hold are left out): a search scores its lexical hits so instead of reading their vectors from the
   * database. Absent on indexes kept elsewhere, which the database is no slower than.
   */
  scores?(embedderId: string, userId: string, vector: Float32Array, ids: readonly string[]): Promise<VectorHit[]>;
  /** Removes every point of the embedder (before a rebuild). */
  clear(embedderId: string): Promise<void>;
  count(embedderId: string): Promise<number>;
  /**
   * For an index that keeps its own files and so can fall behind the database across a crash: given the
   * version of every memory that should be in it, the ids it lacks or holds in another version (to write
   * again) and the ids it holds that should not be there (to delete).
   */
  reconcile?(embedderId: string, versions: ReadonlyMap<string, number>): Promise<{ stale: string[]; extra: string[] }>;
  /**
   * For an index kept outside this process, which can lose an embedder's points without this process knowing (a
   * Qdrant collection deleted, or a server without persistence restarted): `listener` hears each time the index
   * found them gone and made room for them again (at start-up too), so that every memory's vector is written again.
   */
  onEmptied?(listener: (embedderId: string) => void): void;
  /** Whether the index is reachable, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
