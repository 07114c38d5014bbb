import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setImmediate } from "node:timers/promises";
import { Int8Rows, quantize, RowGroup } from "./int8-rows.ts";
import { NO_NODE, SharedNodes, type PlacedVector } from "./shared-nodes.ts";
import { int8Graph, loadGraphBinding, matchesOf, type GraphBinding, type GraphMatches, type NativeGraph } from "./usearch-native.ts";
import type { VectorFilter, VectorHit, VectorIndex, VectorPoint } from "./vector-index.ts";

// Loaded on demand: a platform without a prebuilt binary falls back to another index instead of failing.
type UsearchModule = typeof import("usearch");

const CONNECTIVITY = 16;
const EXPANSION_ADD = 64;
// recall@10 at 100k points of one user (bench/search, hashed vectors): with f16 nodes 0.93 at 512, 0.96 at 768, 0.973
// at 1024 (+1 ms a search); with int8 nodes, whose distances cost less, 0.949 at 768 and 0.978 at 1024
const EXPANSION_SEARCH = 1024;
/**
 * Tag or thread filters that let at most this many points through are answered by an exact scan of their rows
 * copied together (~1 µs a row, scattered as they are); wider ones by the graph, whose walk costs the same
 * ~4 ms at 100k points whatever the filter.
 */
const GATHER_MAX = 3_000;
/**
 * A partition of at most this many points is answered by an exact scan of its rows, type group by type group,
 * instead of the graph: the walk visits EXPANSION_SEARCH candidates and their neighbours whatever the size, about
 * 1.9 ms of CPU at 10 000 of bench:recall's points, where a scan of 10 000 int8 rows costs 0.4-0.5 ms and 50 000
 * about 2 ms (usearch's exactSearch, one thread), and finds the true nearest. Such a partition has no graph to
 * keep either: its graph is built once it grows past this size (0.3-0.9 ms of CPU a point spared each write).
 */
const SCAN_MAX = 50_000;
/** usearch's own thread pool for inserts: 0 is one thread per core. */
const ADD_THREADS = 0;
/**
 * Points inserted in one turn of the index's event loop (usearch-thread.ts). usearch's add is synchronous (about
 * 0.4 ms a point on a small machine): between turns, searches are answered while a large batch goes in.
 */
const ADD_PER_TURN = 16;
const SAVE_EVERY_MS = 60_000;
/**
 * A partition is saved again no sooner than this many times its last save's duration after it: the index's thread
 * answers nothing while it writes a partition's files, 4-9 s at a million points of one user, which every minute
 * held that user's searches back (and writes, up to INDEX_WAIT_MS) for a tenth of the time. Spaced so, saves take
 * at most 1% of the thread's time; what changed since the last save is found again at the next start, where the
 * index is reconciled with the database (its stored vectors re-added, not embedded again). A close saves them all.
 */
const SAVE_SPACING = 100;

/** What the index reports: the service's logger, or in its thread messages to it (usearch-thread.ts). */
export interface IndexLog {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A point as the index takes it: its metadata stays with the database (searchesWhere is false). */
export type IndexedPoint = Omit<VectorPoint, "metadata">;

/** What a point keeps besides its vector: the fields searches filter on. */
interface Payload {
  id: string;
  version: number;
  type: string | null;
  tags: string[];
  threadId: string | null;
  isArchived: boolean;
  createdAt: number;
}

/**
 * A payload as a save writes it: with its key, its fields in a row. Saves before wrote [key, payload object], whose
 * field names were a third of the file (16.7 MB at 100 000 points); loads read both.
 */
type SavedPayload = [
  key: number,
  id: string,
  version: number,
  type: string | null,
  tags: string[],
  threadId: string | null,
  isArchived: boolean,
  createdAt: number,
  /** Its node in the graph (SharedNodes); saves before nodes were shared had none: the node was the key. */
  node?: number,
];

const savedPayload = (key: number, p: Payload, node: number): SavedPayload => [key, p.id, p.version, p.type, p.tags, p.threadId, p.isArchived, p.createdAt, node];

function loadedPayload(saved: SavedPayload | [number, Payload]): [key: number, payload: Payload, node: number] {
  if (saved.length === 2) return [saved[0], saved[1], saved[0]];
  const [key, id, version, type, tags, threadId, isArchived, createdAt, node = key] = saved;
  return [key, { id, version, type, tags, threadId, isArchived, createdAt }, node];
}

/** One user's vectors of one embedder: searches never cross users, so neither does the graph. */
class Partition {
  /** By key: a key is the point's row in `rows` (its node in the graph: `nodes`), and keys of deleted points are reused. */
  readonly payloads: (Payload | undefined)[] = [];
  readonly keyOf = new Map<string, number>();
  private readonly freeKeys: number[] = [];
  /** Keys by `postingName()`: the points of a tag or a thread, for filters that let few through. */
  private readonly postings = new Map<string, Set<number>>();
  /**
   * One string for each type, tag and thread the payloads name: each request's or file's row brought its own copy
   * (at 100 000 points of one user, 45 000 copies of "observation"). Kept while the partition lives, as `postings`
   * keeps a list for each.
   */
  private readonly words = new Map<string, string>();
  dirty = false;
  /** The number of the last save; its files are <user>.<generation>.usearch, .json and .i8. */
  generation = 0;
  /** When (the index's clock) a timed save may write it again: SAVE_SPACING times its last save's duration on. */
  savableAt = 0;
  readonly nodes: SharedNodes;
  /**
   * The graph: none while the partition is scanned (at most scanMax points); past that, built a few points a turn
   * of the thread's loop (searches are scanned meanwhile), and kept up with every write once begun.
   */
  private graph: "none" | "building" | "built" = "none";
  /** The build under way, if one is. */
  building: Promise<void> | undefined;

  constructor(
    private readonly usearch: UsearchModule,
    readonly index: NativeGraph,
    readonly rows: Int8Rows,
    private readonly scanMax: number,
    private readonly log: IndexLog,
  ) {
    this.nodes = new SharedNodes(index);
  }

  get size(): number {
    return this.keyOf.size;
  }

  upsert(batch: readonly IndexedPoint[]): void {
    // one key per id: the last write of an id in a batch is its state
    const points = [...new Map(batch.map((p) => [p.id, p])).values()];
    const placed = points.map((p) => {
      const key = this.keyOf.get(p.id) ?? this.freeKeys.pop() ?? this.payloads.length;
      this.unpost(key);
      this.place(key, { ...p, createdAt: p.createdAt.getTime() });
      const row = quantize(p.vector);
      this.rows.set(key, p.type, row);
      return { key, vector: row };
    });
    if (this.graph === "none") this.buildGraphPastScanMax();
    else this.nodes.place(placed, ADD_THREADS);
    this.dirty = true;
  }

  /** After a load: the graph as saved, finished if the save came while it was being built. */
  graphLoaded(): void {
    if (this.nodes.count === 0) return this.buildGraphPastScanMax();
    this.graph = "building";
    this.building = this.buildGraph();
  }

  private buildGraphPastScanMax(): void {
    if (this.size <= this.scanMax) return;
    this.graph = "building";
    this.building = this.buildGraph();
  }

  /** Adds a node for every point that has none, ADD_PER_TURN at a time; writes meanwhile place their own. */
  private async buildGraph(): Promise<void> {
    try {
      for (let key = 0; key < this.payloads.length; await setImmediate()) {
        const batch: PlacedVector[] = [];
        for (; key < this.payloads.length && batch.length < ADD_PER_TURN; key++) {
          if (this.payloads[key] && !this.nodes.holds(key)) batch.push({ key, vector: this.rows.row(key)! });
        }
        this.nodes.place(batch, ADD_THREADS);
      }
      this.graph = "built";
      this.dirty = true;
    } catch (error) {
      // searches go on scanning every row: exact, and slower as the partition grows
      this.log.error({ err: error, points: this.size }, "could not build a vector partition's graph; its searches scan every point");
    } finally {
      this.building = undefined;
    }
  }

  delete(id: string): void {
    const key = this.keyOf.get(id);
    if (key === undefined) return;
    this.nodes.remove(key);
    this.unpost(key);
    this.rows.delete(key);
    this.keyOf.delete(id);
    this.payloads[key] = undefined;
    this.freeKeys.push(key);
    this.dirty = true;
  }

  /** Puts a payload at its key, in the postings too (after a load, or on a write). */
  place(key: number, { id, version, type, tags, threadId, isArchived, createdAt }: Payload): void {
    // a tags array of its own, of its length: a request's kept the slack it grew with (8 MB at 100 000 points)
    const payload: Payload = {
      id,
      version,
      type: type === null ? null : this.word(type),
      tags: tags.map((tag) => this.word(tag)),
      threadId: threadId === null ? null : this.word(threadId),
      isArchived,
      createdAt,
    };
    this.payloads[key] = payload;
    this.keyOf.set(payload.id, key);
    for (const posting of postingNames(payload)) {
      let keys = this.postings.get(posting);
      if (!keys) this.postings.set(posting, (keys = new Set()));
      keys.add(key);
    }
  }

  private word(text: string): string {
    const known = this.words.get(text);
    if (known !== undefined) return known;
    this.words.set(text, text);
    return text;
  }

  private unpost(key: number): void {
    const payload = this.payloads[key];
    if (!payload) return;
    for (const posting of postingNames(payload)) this.postings.get(posting)?.delete(key);
  }

  /** After a load: the keys between the used ones are free. */
  restoreFreeKeys(): void {
    for (let key = this.payloads.length - 1; key >= 0; key--) if (!this.payloads[key]) this.freeKeys.push(key);
  }

  search(vector: Float32Array, filter: VectorFilter, limit: number): VectorHit[] {
    const query = quantize(vector);
    const posting = this.narrowestPosting(filter);
    const typed = filter.type === undefined ? undefined : (this.rows.group(filter.type) ?? NO_ROWS);
    if (typed && (!posting || typed.keys.length <= posting.size)) {
      return this.scan(query, filter, limit, typed.rows(), typed.keys);
    }
    if (posting && posting.size <= GATHER_MAX) return this.gatherAndScan(query, filter, limit, [...posting].filter((key) => passes(this.payloads[key]!, filter)));
    if (this.size <= this.scanMax || this.graph !== "built") return this.scanGroups(query, filter, limit);
    return this.walk(query, filter, limit);
  }

  /** The cosine of the query with the rows of those of `ids` the partition holds, on the scale of `search`'s scores. */
  scores(vector: Float32Array, ids: readonly string[]): VectorHit[] {
    const keys = ids.flatMap((id) => this.keyOf.get(id) ?? []);
    if (keys.length === 0) return [];
    const rows = scratch(keys.length, this.rows.dimensions);
    this.rows.gather(keys, rows);
    const { MetricKind, Matches, exactSearch } = this.usearch;
    const matches = exactSearch(rows, quantize(vector), this.rows.dimensions, keys.length, MetricKind.Cos, 1);
    if (!(matches instanceof Matches)) throw new Error("usearch answered one query with a batch");
    return Array.from(matches.keys, (row, i) => ({ id: this.payloads[keys[Number(row)]!]!.id, score: 1 - matches.distances[i]! }));
  }

  /** `scan` of every type's rows where they lie, the best `limit` of them all. */
  private scanGroups(query: Int8Array, filter: VectorFilter, limit: number): VectorHit[] {
    const hits = this.rows.allGroups().flatMap((group) => this.scan(query, filter, limit, group.rows(), group.keys));
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /** `scan` over the rows of `keys`, copied together. */
  private gatherAndScan(query: Int8Array, filter: VectorFilter, limit: number, keys: readonly number[]): VectorHit[] {
    const rows = scratch(keys.length, this.rows.dimensions);
    this.rows.gather(keys, rows);
    return this.scan(query, filter, limit, rows, keys);
  }

  /** The smallest posting list of the filter's tags and thread, if it names any. */
  private narrowestPosting(filter: VectorFilter): ReadonlySet<number> | undefined {
    const names = (filter.tags ?? []).map((tag) => postingName("tag", tag));
    if (filter.threadId !== undefined) names.push(postingName("thread", filter.threadId));
    const lists = names.map((name) => this.postings.get(name) ?? NO_KEYS);
    return lists.length ? lists.reduce((a, b) => (b.size < a.size ? b : a)) : undefined;
  }

  /**
   * Exact cosine over int8 rows (`keys[i]` is row i's key), widening like `walk` until enough pass the filter:
   * for filters that let a minority through, which the graph would have to walk far and widen often to find.
   */
  private scan(query: Int8Array, filter: VectorFilter, limit: number, rows: Int8Array, keys: readonly number[]): VectorHit[] {
    const { MetricKind, Matches, exactSearch } = this.usearch;
    for (let k = Math.min(keys.length, limit * 4); k > 0; k = Math.min(keys.length, k * 4)) {
      const matches = exactSearch(rows, query, this.rows.dimensions, k, MetricKind.Cos, 1);
      if (!(matches instanceof Matches)) throw new Error("usearch answered one query with a batch");
      const hits = this.passing(matches, filter, limit, (row) => keys[row]!);
      if (hits.length >= limit || k >= keys.length) return hits;
    }
    return [];
  }

  /**
   * The graph finds the nearest points regardless of filters; ask for more than `limit` and widen until enough
   * pass the filter, at worst every point. A graph built by several threads at once may leave a node that no walk
   * reaches (one of 64 in about a third of the runs of drafted-index.test.ts): when a walk for every node finds
   * fewer, and too few pass, an exact scan of every point's row answers instead.
   */
  private walk(query: Int8Array, filter: VectorFilter, limit: number): VectorHit[] {
    const size = this.nodes.count;
    // a walk visits EXPANSION_SEARCH candidates whatever k up to it is: asking for all of them costs nothing
    for (let k = Math.min(size, Math.max(limit * 4, EXPANSION_SEARCH)); k > 0; k = Math.min(size, k * 4)) {
      const matches = matchesOf(this.index.search(query, k, 1));
      const hits = this.passing(matches, filter, limit, (node) => this.nodes.pointsAt(node));
      if (hits.length >= limit) return hits;
      if (k >= size) return matches.keys.length < size ? this.gatherAndScan(query, filter, limit, [...this.keyOf.values()]) : hits;
    }
    return [];
  }

  /** The first `limit` points of the matches that pass the filter; `keysAt` gives a match's point key or keys. */
  private passing(
    matches: GraphMatches,
    filter: VectorFilter,
    limit: number,
    keysAt: (match: number) => number | Iterable<number> | undefined,
  ): VectorHit[] {
    const hits: VectorHit[] = [];
    const take = (key: number, score: number) => {
      const payload = this.payloads[key];
      if (payload && passes(payload, filter) && hits.length < limit) hits.push({ id: payload.id, score });
    };
    for (let i = 0; i < matches.keys.length && hits.length < limit; i++) {
      const keys = keysAt(Number(matches.keys[i]!));
      const score = 1 - matches.distances[i]!;
      if (typeof keys === "number") take(keys, score);
      else if (keys) for (const key of keys) take(key, score);
    }
    return hits;
  }
}

const NO_KEYS: ReadonlySet<number> = new Set();
const NO_ROWS = new RowGroup(0);

let scratchRows = new Int8Array(0);

/** A reused buffer for the rows a scan compares (searches run one at a time, on the index's thread). */
function scratch(rows: number, dimensions: number): Int8Array {
  const length = rows * dimensions;
  // kept for the next scan up to GATHER_MAX rows: the rare scan of every point (`walk`) gets a buffer of its own
  if (rows > GATHER_MAX) return new Int8Array(length);
  if (scratchRows.length < length) scratchRows = new Int8Array(length);
  return scratchRows.subarray(0, length);
}

function postingName(field: "tag" | "thread", value: string): string {
  return `${field}:${value}`;
}

function postingNames(p: Payload): string[] {
  const names = p.tags.map((tag) => postingName("tag", tag));
  if (p.threadId !== null) names.push(postingName("thread", p.threadId));
  return names;
}

function passes(p: Payload, f: VectorFilter): boolean {
  if (p.isArchived) return false;
  if (f.type !== undefined && p.type !== f.type) return false;
  if (f.threadId !== undefined && p.threadId !== f.threadId) return false;
  if (f.fromDate && p.createdAt < f.fromDate.getTime()) return false;
  if (f.toDate && p.createdAt > f.toDate.getTime()) return false;
  return !f.tags || f.tags.every((tag) => p.tags.includes(tag));
}

/** Rows of a saved .i8 file read or written at a time. */
const SAVED_CHUNK_ROWS = 4_096;

/**
 * Calls `each` with every entry's row of the .i8 file (the row at the entry's key), reading the file a chunk at a
 * time rather than whole: at 100 000 points a whole file is 51 MB more to hold while loading, and left for the
 * collector after. Entries come in key order as `save()` writes them, so each chunk is read once.
 */
function forEachSavedRow<T extends readonly [number, ...unknown[]]>(
  file: string,
  dimensions: number,
  entries: readonly T[],
  each: (entry: T, row: Int8Array) => void,
): void {
  const fd = openSync(file, "r");
  try {
    const chunk = new Int8Array(SAVED_CHUNK_ROWS * dimensions);
    let first = 0;
    let count = 0;
    for (const entry of entries) {
      const key = entry[0];
      if (key < first || key >= first + count) {
        first = key;
        count = Math.floor(readSync(fd, chunk, 0, chunk.length, key * dimensions) / dimensions);
        if (count === 0) throw new Error(`${file} is shorter than its keys`);
      }
      each(entry, chunk.subarray((key - first) * dimensions, (key - first + 1) * dimensions));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the rows of keys 0 to `keyCount - 1` as `forEachSavedRow` reads them, a chunk at a time: whole, they were
 * 51 MB more at 100 000 points, left behind by each save for a collection that the idle thread put off.
 */
function writeSavedRows(file: string, rows: Int8Rows, keyCount: number): void {
  const fd = openSync(file, "w");
  try {
    const chunk = new Int8Array(SAVED_CHUNK_ROWS * rows.dimensions);
    for (let first = 0; first < keyCount; first += SAVED_CHUNK_ROWS) {
      const count = Math.min(SAVED_CHUNK_ROWS, keyCount - first);
      rows.copyByKey(first, count, chunk);
      for (let written = 0, length = count * rows.dimensions; written < length; ) {
        written += writeSync(fd, chunk, written, length - written);
      }
    }
  } finally {
    closeSync(fd);
  }
}

interface Space {
  dimensions: number;
  dir: string | undefined;
  partitions: Map<string, Partition>;
  /** memory id → its user's partition, to find a point to delete (not the user id: a copy of it for each point) */
  owners: Map<string, Partition>;
}

/**
 * The embedded index: usearch's native HNSW (cosine, int8 rows) in this process, one graph per user and embedder,
 * saved under DATA_DIR/vectors and reconciled with the database at start-up. Only for a database this process
 * alone writes (PGlite): servers sharing PostgreSQL could not see each other's writes in it.
 *
 * Chosen over pgvector in PGlite because pgvector's HNSW runs as WebAssembly there: ~3.8 ms to insert one
 * 512-dimension vector (native usearch: ~0.15 ms), which would cap batch writes near 260 memories/s.
 */
export class UsearchIndex implements VectorIndex {
  readonly kind = "usearch";
  private readonly spaces = new Map<string, Space>();
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly usearch: UsearchModule,
    private readonly graphs: GraphBinding,
    private readonly dir: string | undefined,
    private readonly logger: IndexLog,
    private readonly saved: () => void,
    private readonly scanMax: number,
    private readonly clock: () => number,
  ) {
    if (dir) this.timer = setInterval(() => this.save(true), SAVE_EVERY_MS).unref();
  }

  /**
   * The index, or undefined when usearch has no binary for this platform. `dir` undefined keeps no files.
   * `saved` is told after a save wrote files (the thread then collects what the save left, as after calls).
   * `scanMax`: partitions up to this size are scanned rather than walked (SCAN_MAX; tests lower it to walk).
   * `clock`: milliseconds, for the spacing of saves (SAVE_SPACING; tests give their own).
   */
  static async open(
    dir: string | undefined,
    logger: IndexLog,
    saved: () => void = () => {},
    scanMax = SCAN_MAX,
    clock: () => number = () => performance.now(),
  ): Promise<UsearchIndex | undefined> {
    try {
      // the CommonJS entry: the ESM one finds its binary through a global __dirname if there is one, and
      // Prisma's generated client sets that global to its own folder
      const usearch = createRequire(import.meta.url)("usearch") as UsearchModule;
      return new UsearchIndex(usearch, loadGraphBinding(), dir, logger, saved, scanMax, clock);
    } catch (error) {
      logger.warn({ err: error }, "usearch is not available on this platform");
      return undefined;
    }
  }

  private space(embedderId: string): Space {
    const space = this.spaces.get(embedderId);
    if (!space) throw new Error(`vector index for ${embedderId} is not ensured`);
    return space;
  }

  private newPartition(dimensions: number): Partition {
    const graph = int8Graph(this.graphs, { dimensions, connectivity: CONNECTIVITY, expansionAdd: EXPANSION_ADD, expansionSearch: EXPANSION_SEARCH });
    return new Partition(this.usearch, graph, new Int8Rows(dimensions), this.scanMax, this.logger);
  }

  private partition(space: Space, userId: string): Partition {
    let partition = space.partitions.get(userId);
    if (!partition) {
      partition = this.newPartition(space.dimensions);
      space.partitions.set(userId, partition);
    }
    return partition;
  }

  /** A partition as `save()` left it under `<base>.<generation>.*`; throws on a missing or damaged file. */
  private load(base: string, generation: number, dimensions: number): Partition {
    const partition = this.newPartition(dimensions);
    partition.generation = generation;
    // a graph saved before the graphs held int8 rows keeps its f16 nodes: usearch reads the kind from the file and
    // takes the int8 rows it is then given as row / 127, which cosine does not tell apart
    partition.index.load(`${base}.${generation}.usearch`);
    const saved = JSON.parse(readFileSync(`${base}.${generation}.json`, "utf8")) as (SavedPayload | [number, Payload])[];
    const payloads = saved.map(loadedPayload);
    const perType = new Map<string | null, number>();
    for (const [, { type }] of payloads) perType.set(type, (perType.get(type) ?? 0) + 1);
    for (const [type, rows] of perType) partition.rows.reserve(type, rows);
    forEachSavedRow(`${base}.${generation}.i8`, dimensions, payloads, ([key, payload, node], row) => {
      partition.place(key, payload);
      partition.rows.set(key, payload.type, row);
      if (node !== NO_NODE) partition.nodes.restore(key, node);
    });
    partition.restoreFreeKeys();
    partition.nodes.restoreFreeNodes();
    partition.graphLoaded();
    return partition;
  }

  async ensure(embedderId: string, dimensions: number): Promise<void> {
    if (this.spaces.has(embedderId)) return;
    const dir = this.dir && join(this.dir, createHash("sha256").update(embedderId).digest("hex").slice(0, 16));
    const space: Space = { dimensions, dir, partitions: new Map(), owners: new Map() };
    if (dir) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "EMBEDDER"), `${embedderId}\n`);
      for (const file of readdirSync(dir).filter((name) => name.endsWith(".current"))) {
        const userId = file.slice(0, -".current".length);
        try {
          const partition = this.load(join(dir, userId), Number(readFileSync(join(dir, file), "utf8")), dimensions);
          space.partitions.set(userId, partition);
          for (const id of partition.keyOf.keys()) space.owners.set(id, partition);
        } catch (error) {
          // a damaged file only costs a rebuild: reconciliation writes the user's points again
          this.logger.warn({ err: error, userId }, "could not load a saved vector partition; it will be rebuilt");
        }
      }
    }
    this.spaces.set(embedderId, space);
  }

  async upsert(embedderId: string, points: readonly IndexedPoint[]): Promise<void> {
    const space = this.space(embedderId);
    for (let at = 0; at < points.length; at += ADD_PER_TURN) {
      if (at > 0) await setImmediate();
      const byPartition = new Map<Partition, IndexedPoint[]>();
      for (const point of points.slice(at, at + ADD_PER_TURN)) {
        const partition = this.partition(space, point.userId);
        const owner = space.owners.get(point.id);
        if (owner !== undefined && owner !== partition) owner.delete(point.id);
        const own = byPartition.get(partition);
        if (own) own.push(point);
        else byPartition.set(partition, [point]);
        space.owners.set(point.id, partition);
      }
      for (const [partition, partitionPoints] of byPartition) partition.upsert(partitionPoints);
    }
  }

  async delete(embedderId: string, ids: readonly string[]): Promise<void> {
    const space = this.space(embedderId);
    for (const id of ids) {
      space.owners.get(id)?.delete(id);
      space.owners.delete(id);
    }
  }

  /** Its points keep no metadata. */
  searchesWhere(): boolean {
    return false;
  }

  async search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    return this.space(embedderId).partitions.get(filter.userId)?.search(vector, filter, limit) ?? [];
  }

  async scores(embedderId: string, userId: string, vector: Float32Array, ids: readonly string[]): Promise<VectorHit[]> {
    return this.space(embedderId).partitions.get(userId)?.scores(vector, ids) ?? [];
  }

  /** Resolves once the graphs being built are (tests wait for it; searches meanwhile scan). */
  async graphsBuilt(): Promise<void> {
    const builds = [...this.spaces.values()].flatMap((space) => [...space.partitions.values()].map((partition) => partition.building));
    await Promise.all(builds);
  }

  async clear(embedderId: string): Promise<void> {
    const space = this.space(embedderId);
    space.partitions.clear();
    space.owners.clear();
    if (space.dir) {
      rmSync(space.dir, { recursive: true, force: true });
      mkdirSync(space.dir, { recursive: true });
    }
  }

  async count(embedderId: string): Promise<number> {
    return this.space(embedderId).owners.size;
  }

  async reconcile(embedderId: string, versions: ReadonlyMap<string, number>): Promise<{ stale: string[]; extra: string[] }> {
    const space = this.space(embedderId);
    const held = new Map<string, number>();
    for (const partition of space.partitions.values()) {
      for (const payload of partition.payloads) if (payload) held.set(payload.id, payload.version);
    }
    const stale = [...versions].filter(([id, version]) => held.get(id) !== version).map(([id]) => id);
    const extra = [...held.keys()].filter((id) => !versions.has(id));
    return { stale, extra };
  }

  async ping(): Promise<void> {}

  /**
   * Writes every changed partition as a new generation (graph and payloads), then points <user>.current at it
   * with an atomic rename, so that a crash at any moment leaves a matching pair to load. `timed` (the periodic save)
   * leaves those whose spacing has not passed (SAVE_SPACING).
   */
  save(timed = false): void {
    let wrote = false;
    for (const space of this.spaces.values()) {
      if (!space.dir) continue;
      for (const [userId, partition] of space.partitions) {
        if (!partition.dirty || (timed && this.clock() < partition.savableAt)) continue;
        const began = this.clock();
        partition.dirty = false;
        const previous = partition.generation;
        const generation = previous + 1;
        const base = join(space.dir, userId);
        try {
          partition.index.save(`${base}.${generation}.usearch`);
          const payloads = partition.payloads.flatMap((payload, key) => (payload ? [savedPayload(key, payload, partition.nodes.nodeOf(key))] : []));
          writeFileSync(`${base}.${generation}.json`, JSON.stringify(payloads));
          writeSavedRows(`${base}.${generation}.i8`, partition.rows, partition.payloads.length);
          writeFileSync(`${base}.current.tmp`, String(generation));
          renameSync(`${base}.current.tmp`, `${base}.current`);
          partition.generation = generation;
          const ended = this.clock();
          partition.savableAt = ended + SAVE_SPACING * (ended - began);
          wrote = true;
          rmSync(`${base}.${previous}.usearch`, { force: true });
          rmSync(`${base}.${previous}.json`, { force: true });
          rmSync(`${base}.${previous}.i8`, { force: true });
        } catch (error) {
          partition.dirty = true;
          this.logger.error({ err: error, userId }, "could not save a vector partition");
        }
      }
    }
    if (wrote) this.saved();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.save();
  }
}
