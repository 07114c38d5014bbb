// What the event loop's thread asks of the vector index's thread (usearch-thread.ts) and what it answers: the
// VectorIndex methods of UsearchIndex, each call a message each way.
import type { IndexedPoint } from "./usearch.ts";
import type { VectorFilter, VectorHit } from "./vector-index.ts";

export type UsearchCalls = {
  /** false: usearch has no binary for this platform (the thread then ends) */
  open: { args: { dir: string | undefined }; result: boolean };
  ensure: { args: { embedderId: string; dimensions: number }; result: void };
  upsert: { args: { embedderId: string; points: IndexedPoint[] }; result: void };
  delete: { args: { embedderId: string; ids: readonly string[] }; result: void };
  search: { args: { embedderId: string; vector: Float32Array; filter: VectorFilter; limit: number }; result: VectorHit[] };
  scores: { args: { embedderId: string; userId: string; vector: Float32Array; ids: readonly string[] }; result: VectorHit[] };
  clear: { args: { embedderId: string }; result: void };
  count: { args: { embedderId: string }; result: number };
  reconcile: { args: { embedderId: string; versions: ReadonlyMap<string, number> }; result: { stale: string[]; extra: string[] } };
  close: { args: Record<string, never>; result: void };
};

/** A line the thread logs through the service's logger (an Error in `fields` crosses as its name, message and stack). */
export interface IndexNotice {
  level: "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}
