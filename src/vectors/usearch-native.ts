import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";

/** usearch's compiled index as its native binding exposes it (javascript/lib.cpp in the usearch package). */
export interface NativeGraph {
  /** Adds a node for each key; `vectors` holds their rows end to end. */
  add(keys: BigUint64Array, vectors: Int8Array, threads: number): void;
  /** The `k` nearest nodes of one query: keys and cosine distances, then how many of them are filled. */
  search(query: Int8Array, k: number, threads: number): [keys: BigUint64Array, distances: Float32Array, counts: BigUint64Array];
  remove(keys: BigUint64Array): unknown;
  save(path: string): void;
  /** Replaces the index with a saved one, which keeps the scalar kind it was saved with. */
  load(path: string): void;
}

/** The nodes a walk found, nearest first. */
export interface GraphMatches {
  keys: BigUint64Array;
  distances: Float32Array;
}

/** usearch's native binding: its compiled index class. */
export interface GraphBinding {
  CompiledIndex: {
    new (
      dimensions: number,
      metric: "cos",
      quantization: "i8",
      connectivity: number,
      expansionAdd: number,
      expansionSearch: number,
      multi: boolean,
    ): NativeGraph;
    prototype: NativeGraph;
  };
}

/**
 * usearch's native binding, loaded the way the package loads it (node-gyp-build: a build from source, else the
 * prebuilt binary). Throws where it cannot load.
 *
 * The graphs are made through it rather than through the package's `Index` class because that class turns every
 * vector into a Float32Array, and usearch's float-to-int8 cast scales a vector by its length and truncates (a unit
 * vector's 512 components land within about ±25: five bits). Our rows are int8 already, scaled by their largest
 * component (int8-rows.ts: seven bits), which cosine does not see; an int8 node costs half an f16 one.
 */
export function loadGraphBinding(): GraphBinding {
  const require = createRequire(import.meta.url);
  // the package's root, three folders above its CommonJS entry (javascript/dist/cjs/usearch.js)
  const root = resolve(dirname(require.resolve("usearch")), "../../..");
  return (require("node-gyp-build") as (dir: string) => GraphBinding)(root);
}

/** A cosine HNSW graph of int8 rows. */
export function int8Graph(
  binding: GraphBinding,
  { dimensions, connectivity, expansionAdd, expansionSearch }: { dimensions: number; connectivity: number; expansionAdd: number; expansionSearch: number },
): NativeGraph {
  return new binding.CompiledIndex(dimensions, "cos", "i8", connectivity, expansionAdd, expansionSearch, false);
}

/** The matches of one query as `search` answers it, cut to those filled. */
export function matchesOf([keys, distances, counts]: ReturnType<NativeGraph["search"]>): GraphMatches {
  const count = Number(counts[0] ?? 0n);
  return { keys: keys.subarray(0, count), distances: distances.subarray(0, count) };
}
