import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Logger } from "../logger.ts";
import type { VectorFilter, VectorHit, VectorIndex, VectorPoint } from "./vector-index.ts";

// Loaded on demand: a platform without a prebuilt binary falls back to another index instead of failing.
type UsearchModule = typeof import("usearch");
type NativeIndex = InstanceType<UsearchModule["Index"]>;

const CONNECTIVITY = 16;
const EXPANSION_ADD = 64;
const EXPANSION_SEARCH = 128;
const SAVE_EVERY_MS = 60_000;

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

/** One user's vectors of one embedder: searches never cross users, so neither does the graph. */
class Partition {
  readonly byKey = new Map<bigint, Payload>();
  readonly keyOf = new Map<string, bigint>();
  private nextKey = 1n;
  dirty = false;
  /** The number of the last save; its files are <user>.<generation>.usearch and .json. */
  generation = 0;

  constructor(readonly index: NativeIndex) {}

  upsert(points: readonly VectorPoint[]): void {
    const removed = points.map((p) => this.keyOf.get(p.id)).filter((key): key is bigint => key !== undefined);
    if (removed.length) this.index.remove(removed);
    const keys = points.map((p) => this.keyOf.get(p.id) ?? this.nextKey++);
    this.index.add(keys, points.map((p) => p.vector), 1);
    points.forEach((p, i) => {
      const key = keys[i]!;
      this.keyOf.set(p.id, key);
      this.byKey.set(key, {
        id: p.id,
        version: p.version,
        type: p.type,
        tags: p.tags,
        threadId: p.threadId,
        isArchived: p.isArchived,
        createdAt: p.createdAt.getTime(),
      });
    });
    this.dirty = true;
  }

  delete(id: string): void {
    const key = this.keyOf.get(id);
    if (key === undefined) return;
    this.index.remove(key);
    this.keyOf.delete(id);
    this.byKey.delete(key);
    this.dirty = true;
  }

  /**
   * HNSW finds the nearest points regardless of filters; ask for more than `limit` and widen until enough
   * pass the filter (at worst every point, which is then an exact search).
   */
  search(vector: Float32Array, filter: VectorFilter, limit: number): VectorHit[] {
    const size = this.byKey.size;
    for (let k = Math.min(size, limit * 4); k > 0; k = Math.min(size, k * 4)) {
      const matches = this.index.search(vector, k, 1);
      const hits: VectorHit[] = [];
      for (let i = 0; i < matches.keys.length && hits.length < limit; i++) {
        const payload = this.byKey.get(matches.keys[i]!);
        if (payload && passes(payload, filter)) hits.push({ id: payload.id, score: 1 - matches.distances[i]! });
      }
      if (hits.length >= limit || k >= size) return hits;
    }
    return [];
  }

  restoreKeys(): void {
    for (const [key, payload] of this.byKey) {
      this.keyOf.set(payload.id, key);
      if (key >= this.nextKey) this.nextKey = key + 1n;
    }
  }
}

function passes(p: Payload, f: VectorFilter): boolean {
  if (p.isArchived) return false;
  if (f.type !== undefined && p.type !== f.type) return false;
  if (f.threadId !== undefined && p.threadId !== f.threadId) return false;
  if (f.fromDate && p.createdAt < f.fromDate.getTime()) return false;
  if (f.toDate && p.createdAt > f.toDate.getTime()) return false;
  return !f.tags || f.tags.every((tag) => p.tags.includes(tag));
}

interface Space {
  dimensions: number;
  dir: string | undefined;
  partitions: Map<string, Partition>;
  /** memory id → user id, to find a point to delete */
  owners: Map<string, string>;
}

/**
 * The embedded index: usearch's native HNSW (cosine, f16) in this process, one graph per user and embedder,
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
    private readonly dir: string | undefined,
    private readonly logger: Logger,
  ) {
    if (dir) this.timer = setInterval(() => this.save(), SAVE_EVERY_MS).unref();
  }

  /** The index, or undefined when usearch has no binary for this platform. `dir` undefined keeps no files. */
  static async open(dir: string | undefined, logger: Logger): Promise<UsearchIndex | undefined> {
    try {
      // the CommonJS entry: the ESM one finds its binary through a global __dirname if there is one, and
      // Prisma's generated client sets that global to its own folder
      const usearch = createRequire(import.meta.url)("usearch") as UsearchModule;
      return new UsearchIndex(usearch, dir, logger);
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

  private newNative(dimensions: number): NativeIndex {
    return new this.usearch.Index({
      metric: this.usearch.MetricKind.Cos,
      dimensions,
      connectivity: CONNECTIVITY,
      quantization: this.usearch.ScalarKind.F16,
      expansion_add: EXPANSION_ADD,
      expansion_search: EXPANSION_SEARCH,
      multi: false,
    });
  }

  private partition(space: Space, userId: string): Partition {
    let partition = space.partitions.get(userId);
    if (!partition) {
      partition = new Partition(this.newNative(space.dimensions));
      space.partitions.set(userId, partition);
    }
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
          const partition = new Partition(this.newNative(dimensions));
          partition.generation = Number(readFileSync(join(dir, file), "utf8"));
          const base = join(dir, `${userId}.${partition.generation}`);
          partition.index.load(`${base}.usearch`);
          const payloads = JSON.parse(readFileSync(`${base}.json`, "utf8")) as [string, Payload][];
          for (const [key, payload] of payloads) partition.byKey.set(BigInt(key), payload);
          partition.restoreKeys();
          space.partitions.set(userId, partition);
          for (const id of partition.keyOf.keys()) space.owners.set(id, userId);
        } catch (error) {
          // a damaged file only costs a rebuild: reconciliation writes the user's points again
          this.logger.warn({ err: error, userId }, "could not load a saved vector partition; it will be rebuilt");
        }
      }
    }
    this.spaces.set(embedderId, space);
  }

  async upsert(embedderId: string, points: readonly VectorPoint[]): Promise<void> {
    const space = this.space(embedderId);
    const byUser = new Map<string, VectorPoint[]>();
    for (const point of points) {
      const owner = space.owners.get(point.id);
      if (owner !== undefined && owner !== point.userId) space.partitions.get(owner)?.delete(point.id);
      byUser.set(point.userId, [...(byUser.get(point.userId) ?? []), point]);
      space.owners.set(point.id, point.userId);
    }
    for (const [userId, userPoints] of byUser) this.partition(space, userId).upsert(userPoints);
  }

  async delete(embedderId: string, ids: readonly string[]): Promise<void> {
    const space = this.space(embedderId);
    for (const id of ids) {
      const owner = space.owners.get(id);
      if (owner === undefined) continue;
      space.partitions.get(owner)?.delete(id);
      space.owners.delete(id);
    }
  }

  async search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    return this.space(embedderId).partitions.get(filter.userId)?.search(vector, filter, limit) ?? [];
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

  reconcile(embedderId: string, versions: ReadonlyMap<string, number>): { stale: string[]; extra: string[] } {
    const space = this.space(embedderId);
    const held = new Map<string, number>();
    for (const partition of space.partitions.values()) {
      for (const payload of partition.byKey.values()) held.set(payload.id, payload.version);
    }
    const stale = [...versions].filter(([id, version]) => held.get(id) !== version).map(([id]) => id);
    const extra = [...held.keys()].filter((id) => !versions.has(id));
    return { stale, extra };
  }

  async ping(): Promise<void> {}

  /**
   * Writes every changed partition as a new generation (graph and payloads), then points <user>.current at it
   * with an atomic rename, so that a crash at any moment leaves a matching pair to load.
   */
  save(): void {
    for (const space of this.spaces.values()) {
      if (!space.dir) continue;
      for (const [userId, partition] of space.partitions) {
        if (!partition.dirty) continue;
        partition.dirty = false;
        const previous = partition.generation;
        const generation = previous + 1;
        const base = join(space.dir, userId);
        try {
          partition.index.save(`${base}.${generation}.usearch`);
          const payloads = [...partition.byKey].map(([key, payload]) => [key.toString(), payload]);
          writeFileSync(`${base}.${generation}.json`, JSON.stringify(payloads));
          writeFileSync(`${base}.current.tmp`, String(generation));
          renameSync(`${base}.current.tmp`, `${base}.current`);
          partition.generation = generation;
          rmSync(`${base}.${previous}.usearch`, { force: true });
          rmSync(`${base}.${previous}.json`, { force: true });
        } catch (error) {
          partition.dirty = true;
          this.logger.error({ err: error, userId }, "could not save a vector partition");
        }
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.save();
  }
}
