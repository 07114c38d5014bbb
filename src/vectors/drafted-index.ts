import { cosine } from "./codec.ts";
import type { VectorFilter, VectorHit, VectorIndex, VectorPoint } from "./vector-index.ts";

/**
 * The most drafts held at once (2 KB each): beyond it, a memory waits for its vector to be searchable by meaning.
 * Also what bounds a search's scan of them (about 5 ms at the limit on a small machine, during a bulk import).
 */
const MAX_DRAFTS = 20_000;

/**
 * An index plus drafts of the vectors of memories still waiting for theirs (Embedder.draft), kept beside it, not
 * in it: a draft lives seconds, and putting it into the index's graph and then replacing it cost the event loop
 * as much as the rest of a write (about half a millisecond a point in usearch). A search compares the user's
 * drafts one by one and merges them with the index's hits; a vector written to the index, or a delete, ends
 * the memory's draft. Drafts are this process' alone (never saved): after a restart the indexer drafts again.
 */
export class DraftedIndex implements VectorIndex {
  readonly kind: string;
  /** embedder id → user id → memory id → draft point */
  private readonly drafts = new Map<string, Map<string, Map<string, VectorPoint>>>();
  /** embedder id → memory id → user id */
  private readonly owners = new Map<string, Map<string, string>>();

  /** Over an index that scores in this process only: over another, SearchService reads the database instead. */
  readonly scores: VectorIndex["scores"];

  constructor(private readonly inner: VectorIndex) {
    this.kind = inner.kind;
    const scores = inner.scores?.bind(inner);
    this.scores =
      scores &&
      (async (embedderId, userId, vector, ids) => this.withDrafts(embedderId, userId, vector, ids, await scores(embedderId, userId, vector, ids)));
  }

  /** Holds drafts for these memories (replacing earlier ones) while there is room; answers how many it holds. */
  putDrafts(embedderId: string, points: readonly VectorPoint[]): number {
    const owners = this.ownersOf(embedderId);
    let held = 0;
    for (const point of points) {
      if (!owners.has(point.id) && owners.size >= MAX_DRAFTS) continue;
      this.dropDraft(embedderId, point.id);
      const byUser = this.draftsOf(embedderId);
      let own = byUser.get(point.userId);
      if (!own) byUser.set(point.userId, (own = new Map()));
      own.set(point.id, point);
      owners.set(point.id, point.userId);
      held++;
    }
    return held;
  }

  ensure(embedderId: string, dimensions: number): Promise<void> {
    return this.inner.ensure(embedderId, dimensions);
  }

  /** A draft ends once its vector is in the index (which may take several turns of the event loop: usearch). */
  async upsert(embedderId: string, points: readonly VectorPoint[]): Promise<void> {
    await this.inner.upsert(embedderId, points);
    for (const point of points) this.dropDraft(embedderId, point.id);
  }

  delete(embedderId: string, ids: readonly string[]): Promise<void> {
    for (const id of ids) this.dropDraft(embedderId, id);
    return this.inner.delete(embedderId, ids);
  }

  searchesWhere(embedderId: string): boolean {
    return this.inner.searchesWhere(embedderId);
  }

  async search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    const hits = await this.inner.search(embedderId, vector, filter, limit);
    const own = this.drafts.get(embedderId)?.get(filter.userId);
    // metadata conditions are the index's to evaluate; drafts keep none, so such a search sees vectors only
    if (!own?.size || filter.where) return hits;
    // a memory whose vector is being inserted may be in both until the insert ends
    const indexed = new Set(hits.map((hit) => hit.id));
    for (const point of own.values()) {
      if (!indexed.has(point.id) && passes(point, filter)) hits.push({ id: point.id, score: cosine(vector, point.vector) });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /** Adds the drafts' scores to the index's, for the ids it does not hold. */
  private withDrafts(embedderId: string, userId: string, vector: Float32Array, ids: readonly string[], held: VectorHit[]): VectorHit[] {
    const own = this.drafts.get(embedderId)?.get(userId);
    if (!own?.size) return held;
    const scored = new Set(held.map((hit) => hit.id));
    for (const id of ids) {
      const draft = own.get(id);
      if (draft && !scored.has(id)) held.push({ id, score: cosine(vector, draft.vector) });
    }
    return held;
  }

  async clear(embedderId: string): Promise<void> {
    this.drafts.delete(embedderId);
    this.owners.delete(embedderId);
    await this.inner.clear(embedderId);
  }

  /** The index's points and the drafts: the memories searchable by meaning. */
  async count(embedderId: string): Promise<number> {
    return (await this.inner.count(embedderId)) + (this.owners.get(embedderId)?.size ?? 0);
  }

  get reconcile(): VectorIndex["reconcile"] {
    return this.inner.reconcile?.bind(this.inner);
  }

  get onEmptied(): VectorIndex["onEmptied"] {
    return this.inner.onEmptied?.bind(this.inner);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private dropDraft(embedderId: string, id: string): void {
    const owners = this.owners.get(embedderId);
    const userId = owners?.get(id);
    if (userId === undefined) return;
    owners!.delete(id);
    this.drafts.get(embedderId)?.get(userId)?.delete(id);
  }

  private draftsOf(embedderId: string): Map<string, Map<string, VectorPoint>> {
    let byUser = this.drafts.get(embedderId);
    if (!byUser) this.drafts.set(embedderId, (byUser = new Map()));
    return byUser;
  }

  private ownersOf(embedderId: string): Map<string, string> {
    let owners = this.owners.get(embedderId);
    if (!owners) this.owners.set(embedderId, (owners = new Map()));
    return owners;
  }
}

/** Whether a point passes a filter's fields (not its metadata conditions); archived memories never do. */
function passes(point: VectorPoint, filter: VectorFilter): boolean {
  if (point.isArchived) return false;
  if (filter.type !== undefined && point.type !== filter.type) return false;
  if (filter.threadId !== undefined && point.threadId !== filter.threadId) return false;
  if (filter.fromDate && point.createdAt < filter.fromDate) return false;
  if (filter.toDate && point.createdAt > filter.toDate) return false;
  return !filter.tags || filter.tags.every((tag) => point.tags.includes(tag));
}
