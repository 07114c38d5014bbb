import { createHash } from "node:crypto";
import { QdrantClient, QdrantClientTimeoutError, type Schemas } from "@qdrant/js-client-rest";
import type { Logger } from "../logger.ts";
import { metadataPayload, qdrantFilter } from "./qdrant-filter.ts";
import { filterFields, VectorIndexUnavailable, type VectorFilter, type VectorHit, type VectorIndex, type VectorPoint } from "./vector-index.ts";

/** Points per write request: large enough for rebuilds to be quick, small enough to stay well under Qdrant's body limit. */
const BATCH = 256;
/**
 * Per request. The client's own default is five minutes; a dead server should fail a write (the outbox retries
 * it) or a search well before the caller gives up. Generous because `wait: true` waits for the write to apply.
 */
const REQUEST_TIMEOUT_MS = 15_000;
/** The Query API (1.10), tenant indexes (1.11) and collection metadata (1.16). */
const MIN_SERVER = { major: 1, minor: 16 };

/**
 * The payload indexes every collection gets: each field searches filter on. `user_id` is the tenant key,
 * which Qdrant uses to keep each user's points together on disk; `created_at` holds RFC 3339 strings and is
 * filtered with datetime ranges.
 */
const PAYLOAD_INDEXES: Record<string, Schemas["PayloadSchemaParams"]> = {
  user_id: { type: "keyword", is_tenant: true },
  type: { type: "keyword" },
  tags: { type: "keyword" },
  thread_id: { type: "keyword" },
  is_archived: { type: "bool" },
  created_at: { type: "datetime" },
};

/**
 * In a collection's metadata: its points hold the memories' metadata (see metadataPayload), so that searches
 * with metadata conditions can be Qdrant's. Collections made before lack it until a rebuild (`npm run reindex`)
 * has written every point again.
 */
const METADATA_MARK = { points_hold_metadata: true };

/**
 * The collection of an embedder's vectors: a stable, valid name whatever the id holds (ids name models and
 * may contain slashes and colons). The id itself is kept in the collection's metadata.
 */
export function collectionName(embedderId: string): string {
  return `memories_${createHash("sha256").update(embedderId).digest("hex").slice(0, 16)}`;
}

/** The names collectionName gives: the collections of this service's embedders. */
const COLLECTION_NAME = /^memories_[0-9a-f]{16}$/;

/**
 * Qdrant, through its REST client: one collection per embedder, points keyed by memory id, filtered by a
 * payload that mirrors the memory's searchable fields. Every search carries the user's id as a `must`
 * condition, so the tenant filter can never be left out. Writes wait until applied, so that a search right
 * after a write sees it. Failures are not retried here: the index outbox retries writes.
 */
export class QdrantIndex implements VectorIndex {
  readonly kind = "qdrant";
  /** By embedder: the collection's name, and whether its points hold metadata. */
  private readonly collections = new Map<string, { name: string; holdsMetadata: boolean }>();
  /** By embedder: the size of its vectors, to make its collection again should it go. */
  private readonly dimensions = new Map<string, number>();
  /** Who hears that an embedder's collection was made afresh (onEmptied), and what they have not heard yet. */
  private emptiedListener: ((embedderId: string) => void) | undefined;
  private readonly emptiedUnheard = new Set<string>();
  /** The collections collectionName names, as listed at the first delete (see delete). */
  private earlier: Promise<string[]> | undefined;

  private constructor(
    private readonly client: QdrantClient,
    /** The URL without credentials, for error messages. */
    private readonly where: string,
    private readonly logger: Logger,
  ) {}

  /**
   * Connects and checks the server's version; fails with an error that names the URL when what answers is not
   * Qdrant. A Qdrant that does not answer at all is checked at its first answer instead: it stopped the service
   * from starting, which made every restart during its outage an outage of writes too (outside probe); meanwhile
   * searches answer 503 and /readyz names it, as while it is away later.
   */
  static async open(config: { url: string; apiKey: string | undefined }, logger: Logger): Promise<QdrantIndex> {
    const url = new URL(config.url);
    const where = `${url.origin}${url.pathname.replace(/\/$/, "")}`;
    const client = new QdrantClient({
      url: url.origin,
      // the URL as written: the client would otherwise put a URL without a port on 6333, not the scheme's port
      port: null,
      prefix: url.pathname.replace(/\/$/, ""),
      timeout: REQUEST_TIMEOUT_MS,
      // the same `api-key` header the client's `apiKey` option sends, without its console warning over http
      headers: config.apiKey ? { "api-key": config.apiKey } : {},
      // checked below instead: the client's check is a request nobody awaits, reported on the console
      checkCompatibility: false,
    });
    const index = new QdrantIndex(client, where, logger);
    const answer = await index.call("version check", () => client.versionInfo()).catch((error: unknown) => {
      if (!(error instanceof VectorIndexUnavailable)) throw error;
      logger.warn({ err: error.message, qdrant: where }, "Qdrant does not answer: the service starts without it; searches answer 503 until it does, writes are stored and indexed then");
      return undefined;
    });
    if (answer === undefined) return index;
    const { version }: { version: unknown } = answer;
    if (typeof version !== "string") throw new Error(`${where} does not answer like Qdrant: GET / reports no version`);
    const [major = NaN, minor = NaN] = version.split(".").map(Number);
    if (major !== MIN_SERVER.major || minor < MIN_SERVER.minor) {
      logger.warn({ qdrant: where, version }, `Qdrant ${version} may not support what this service needs (1.16 or later)`);
    }
    if (config.apiKey && url.protocol === "http:") {
      logger.warn({ qdrant: where }, "QDRANT_API_KEY is sent over plain http");
    }
    logger.info({ qdrant: where, version }, "connected to Qdrant");
    return index;
  }

  /** Runs one request; a failure becomes an error naming the operation and the server, never the key. */
  private async call<T>(operation: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw new VectorIndexUnavailable(`Qdrant ${operation} failed (${this.where}): ${describe(error)}`, { cause: error });
    }
  }

  /**
   * The embedder's collection, made again when an earlier request found it gone (forgotten by `call`): Qdrant's
   * data is not this process', and a collection deleted, or a server without persistence restarted, loses it.
   */
  private async collection(embedderId: string): Promise<string> {
    const collection = this.collections.get(embedderId);
    if (collection) return collection.name;
    const dimensions = this.dimensions.get(embedderId);
    if (dimensions === undefined) throw new Error(`vector index for ${embedderId} is not ensured`);
    await this.ensure(embedderId, dimensions);
    return this.collections.get(embedderId)!.name;
  }

  /** Runs a request on an embedder's collection; should the collection be gone, it is forgotten, to be made again. */
  private async onCollection<T>(embedderId: string, operation: string, request: (name: string) => Promise<T>): Promise<T> {
    const name = await this.collection(embedderId);
    try {
      return await this.call(`${operation} ${name}`, () => request(name));
    } catch (error) {
      if (statusOf(error instanceof VectorIndexUnavailable ? error.cause : error) === 404) {
        this.logger.warn({ qdrant: this.where, collection: name }, "the Qdrant collection is gone: making it again, and writing every vector again");
        this.collections.delete(embedderId);
      }
      throw error;
    }
  }

  onEmptied(listener: (embedderId: string) => void): void {
    this.emptiedListener = listener;
    for (const embedderId of this.emptiedUnheard) listener(embedderId);
    this.emptiedUnheard.clear();
  }

  async ensure(embedderId: string, dimensions: number): Promise<void> {
    if (this.collections.has(embedderId)) return;
    this.dimensions.set(embedderId, dimensions);
    const name = collectionName(embedderId);
    let info = await this.info(name);
    const made = !info;
    if (!info) {
      await this.call(`create collection ${name}`, async () => {
        try {
          await this.client.api().createCollection({
            collection_name: name,
            vectors: { size: dimensions, distance: "Cosine" },
            metadata: { embedder_id: embedderId, ...METADATA_MARK },
          });
        } catch (error) {
          // another process created it first: what matters is that it exists, and its settings are checked below
          if (statusOf(error) !== 409) throw error;
        }
      });
      info = await this.info(name);
      if (!info) throw new Error(`Qdrant collection ${name} is missing right after its creation (${this.where})`);
    }
    this.check(name, embedderId, dimensions, info);
    for (const [field, schema] of Object.entries(PAYLOAD_INDEXES)) {
      const existing = info.payload_schema[field];
      if (existing && existing.data_type !== schema.type) {
        throw new Error(
          `Qdrant collection ${name} indexes ${field} as ${existing.data_type}, not ${schema.type} (${this.where})`,
        );
      }
      if (existing) continue;
      await this.call(`create payload index ${field} on ${name}`, () =>
        this.client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true }),
      );
    }
    const holdsMetadata = info.config.metadata?.["points_hold_metadata"] === true;
    if (!holdsMetadata) {
      this.logger.warn(
        { qdrant: this.where, collection: name },
        "This Qdrant collection was written before its points held the memories' metadata: searches with metadata " +
          "conditions or boolean logic compare stored vectors one by one (EXACT_SEARCH_MAX_MEMORIES) until `npm run reindex` rebuilds it.",
      );
    }
    this.collections.set(embedderId, { name, holdsMetadata });
    // an empty collection where memories may have vectors (a first start makes one too: nothing to write then)
    if (made) {
      if (this.emptiedListener) this.emptiedListener(embedderId);
      else this.emptiedUnheard.add(embedderId);
    }
  }

  searchesWhere(embedderId: string): boolean {
    return this.collections.get(embedderId)?.holdsMetadata ?? false;
  }

  /** The collection's description, or undefined when there is none. */
  private info(name: string): Promise<Schemas["CollectionInfo"] | undefined> {
    return this.call(`read collection ${name}`, async () => {
      try {
        return await this.client.getCollection(name);
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    });
  }

  /** Refuses a collection that would mix vectors: another size, another distance or another embedder. */
  private check(name: string, embedderId: string, dimensions: number, info: Schemas["CollectionInfo"]): void {
    const vectors = info.config.params.vectors;
    const params = vectors && "size" in vectors && typeof vectors.size === "number" ? vectors : undefined;
    if (!params || params.size !== dimensions || params.distance !== "Cosine") {
      const found = params ? `${params.size} dimensions, ${params.distance}` : "named vectors";
      throw new Error(
        `Qdrant collection ${name} holds vectors of ${found}, but embedder ${embedderId} makes ${dimensions} ` +
          `dimensions compared by Cosine (${this.where}). Delete the collection, or use another embedder.`,
      );
    }
    const owner = info.config.metadata?.["embedder_id"];
    if (owner !== undefined && owner !== embedderId) {
      throw new Error(`Qdrant collection ${name} belongs to embedder ${String(owner)}, not ${embedderId} (${this.where})`);
    }
  }

  async upsert(embedderId: string, points: readonly VectorPoint[]): Promise<void> {
    for (let i = 0; i < points.length; i += BATCH) {
      const batch = points.slice(i, i + BATCH).map((p) => ({
        id: p.id,
        vector: Array.from(p.vector),
        payload: { ...filterFields(p), ...metadataPayload(p.metadata), version: p.version },
      }));
      await this.onCollection(embedderId, "upsert into", (name) => this.client.upsert(name, { wait: true, points: batch }));
    }
  }

  /**
   * From the embedder's collection, and from the collections other embedders of this service left (named by
   * collectionName): a memory deleted after a change of embedder must not stay, with its payload, in the collection
   * of the one before.
   */
  async delete(embedderId: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const current = await this.collection(embedderId);
    // listed once: an earlier embedder's collection is there before this process starts
    this.earlier ??= this.call("list collections", () => this.client.getCollections()).then(({ collections }) =>
      collections.map(({ name }) => name).filter((name) => COLLECTION_NAME.test(name)),
    );
    const others = (await this.earlier.catch((error: unknown) => {
      this.earlier = undefined;
      throw error;
    })).filter((name) => name !== current);
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      await this.onCollection(embedderId, "delete from", (name) => this.client.delete(name, { wait: true, points: batch }));
      for (const name of others) await this.call(`delete from ${name}`, () => this.client.delete(name, { wait: true, points: batch }));
    }
  }

  async search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    const { points } = await this.onCollection(embedderId, "search in", (name) =>
      this.client.query(name, { query: Array.from(vector), filter: qdrantFilter(filter), limit, with_payload: false }),
    );
    return points.map((point) => ({ id: String(point.id), score: point.score }));
  }

  /**
   * Deletes the points and keeps the collection, so that its settings and payload indexes stay as they are.
   * Every point written from now on holds metadata: the collection is marked so.
   */
  async clear(embedderId: string): Promise<void> {
    // an empty filter matches every point
    try {
      await this.onCollection(embedderId, "clear", (name) => this.client.delete(name, { wait: true, filter: {} }));
    } catch (error) {
      // a collection gone is as clear as it gets: it is made again, empty
      if (this.collections.has(embedderId)) throw error;
      await this.collection(embedderId);
    }
    const name = await this.collection(embedderId);
    const collection = this.collections.get(embedderId);
    if (collection && !collection.holdsMetadata) {
      await this.call(`mark ${name}`, () => this.client.updateCollection(name, { metadata: METADATA_MARK }));
      collection.holdsMetadata = true;
    }
  }

  async count(embedderId: string): Promise<number> {
    const { count } = await this.onCollection(embedderId, "count", (name) => this.client.count(name, { exact: true }));
    return count;
  }

  /** Lists the collections: cheap, and unlike `GET /` it needs the API key, so a revoked key shows too. */
  async ping(): Promise<void> {
    await this.call("ping", () => this.client.getCollections());
  }

  async close(): Promise<void> {}
}

/** The HTTP status of a failed request, when the server answered. */
function statusOf(error: unknown): number | undefined {
  return error instanceof Error && "status" in error && typeof error.status === "number" ? error.status : undefined;
}

/** What went wrong: Qdrant's own words when it answered (they never echo the key), else the client's. */
function describe(error: unknown): string {
  if (error instanceof QdrantClientTimeoutError) return `no answer within ${REQUEST_TIMEOUT_MS} ms`;
  if (!(error instanceof Error)) return String(error);
  const status = statusOf(error);
  if (status !== undefined) return `${status} ${serverMessage(error) ?? error.message}`;
  // fetch says "fetch failed" and puts the reason (ECONNREFUSED, a DNS failure) in `cause`
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

/** The body of an error answer: `{"status": {"error": "..."}}`, or plain text when authentication fails. */
function serverMessage(error: Error): string | undefined {
  const data: unknown = "data" in error ? error.data : undefined;
  if (typeof data === "string") return data || undefined;
  const status: unknown = typeof data === "object" && data !== null && "status" in data ? data.status : undefined;
  return typeof status === "object" && status !== null && "error" in status ? String(status.error) : undefined;
}
