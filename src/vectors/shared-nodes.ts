import { createHash } from "node:crypto";

/** What this module needs of a usearch index: its keys are the graph's nodes, `vectors` their rows end to end. */
export interface NodeGraph {
  add(keys: BigUint64Array, vectors: Int8Array, threads: number): void;
  remove(keys: BigUint64Array): unknown;
}

/** A point of the partition (its key) and the int8 row it is written with (int8-rows.ts). */
export interface PlacedVector {
  key: number;
  vector: Int8Array;
}

/** A point's node when it has none (saved so while its partition had no graph). */
export const NO_NODE = -1;

const vectorId = (vector: Int8Array) =>
  createHash("sha1").update(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)).digest("base64");

/**
 * The nodes of a partition's HNSW graph, each shared by the points whose vectors are identical (the same text
 * written again, a memory whose tags or metadata changed): one insert into the graph for all of them. An insert
 * costs 0.1-0.2 ms for a new vector at 20 000 points, and three times that for one the graph holds already (its
 * equals all tie with it), so a user who writes the same thing often paid most for it. A node is removed once
 * its last point is. Which vector a node holds is known for the nodes made since start (sha1 of the vector's
 * bytes); a node loaded from a save is shared again only by the points saved with it.
 */
export class SharedNodes {
  /** By point key: its node (NO_NODE for none). */
  private readonly nodeOfPoint: number[] = [];
  /** By node: its point's key, or its points' keys when it has several. */
  private readonly pointsOfNode: (number | Set<number> | undefined)[] = [];
  private readonly nodeOfVector = new Map<string, number>();
  private readonly vectorOfNode: (string | undefined)[] = [];
  private readonly freeNodes: number[] = [];
  /** Nodes whose last point left during `place`: removed from the graph, and reused, only after its additions. */
  private emptied: number[] = [];
  private nodes = 0;

  constructor(private readonly graph: NodeGraph) {}

  /** How many nodes the graph holds. */
  get count(): number {
    return this.nodes;
  }

  holds(key: number): boolean {
    return this.nodeOf(key) !== NO_NODE;
  }

  nodeOf(key: number): number {
    return this.nodeOfPoint[key] ?? NO_NODE;
  }

  /** The keys of the points at a node the graph answered. */
  pointsAt(node: number): number | ReadonlySet<number> | undefined {
    return this.pointsOfNode[node];
  }

  /**
   * Writes each point's vector: a point whose vector is its node's already keeps it, another joins the node of
   * an identical vector, else a node is added for it. `threads` is usearch's for the additions.
   */
  place(points: readonly PlacedVector[], threads: number): void {
    const added: PlacedVector[] = [];
    for (const { key, vector } of points) {
      const id = vectorId(vector);
      const current = this.nodeOf(key);
      if (current !== NO_NODE && this.vectorOfNode[current] === id) continue;
      if (current !== NO_NODE) this.leave(key, current);
      let node = this.nodeOfVector.get(id);
      if (node === undefined) {
        node = this.freeNodes.pop() ?? this.pointsOfNode.length;
        this.nodeOfVector.set(id, node);
        this.vectorOfNode[node] = id;
        this.nodes++;
        added.push({ key: node, vector });
      }
      this.join(key, node);
    }
    this.flushEmptied();
    if (added.length === 0) return;
    const dimensions = added[0]!.vector.length;
    const rows = new Int8Array(added.length * dimensions);
    added.forEach(({ vector }, i) => rows.set(vector, i * dimensions));
    this.graph.add(BigUint64Array.from(added, ({ key }) => BigInt(key)), rows, threads);
  }

  /** The point leaves its node, which goes once it has no point left. */
  remove(key: number): void {
    const node = this.nodeOf(key);
    if (node === NO_NODE) return;
    this.leave(key, node);
    this.flushEmptied();
  }

  /** After a load: the point is at the node it was saved with. */
  restore(key: number, node: number): void {
    if (this.pointsOfNode[node] === undefined) this.nodes++;
    this.join(key, node);
  }

  /** After a load: the nodes between the used ones are free. */
  restoreFreeNodes(): void {
    for (let node = this.pointsOfNode.length - 1; node >= 0; node--) if (this.pointsOfNode[node] === undefined) this.freeNodes.push(node);
  }

  private join(key: number, node: number): void {
    this.nodeOfPoint[key] = node;
    const points = this.pointsOfNode[node];
    if (points === undefined) this.pointsOfNode[node] = key;
    else if (typeof points === "number") this.pointsOfNode[node] = new Set([points, key]);
    else points.add(key);
  }

  private leave(key: number, node: number): void {
    this.nodeOfPoint[key] = NO_NODE;
    const points = this.pointsOfNode[node];
    if (typeof points === "object") {
      points.delete(key);
      if (points.size === 1) this.pointsOfNode[node] = points.values().next().value;
      return;
    }
    this.pointsOfNode[node] = undefined;
    const id = this.vectorOfNode[node];
    if (id !== undefined && this.nodeOfVector.get(id) === node) this.nodeOfVector.delete(id);
    this.vectorOfNode[node] = undefined;
    this.nodes--;
    this.emptied.push(node);
  }

  private flushEmptied(): void {
    if (this.emptied.length === 0) return;
    this.graph.remove(BigUint64Array.from(this.emptied, BigInt));
    this.freeNodes.push(...this.emptied);
    this.emptied = [];
  }
}
