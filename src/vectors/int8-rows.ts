/**
 * Int8 copies of a partition's vectors for exact scans of the points a filter lets through, kept contiguous
 * per memory type: a type filter (the common one) scans its type's rows where they lie, and other narrow
 * filters copy their few rows together first. Each row is scaled by its largest component, which cosine
 * ignores: on 512-dimension vectors scores stay within ±0.003 of the float ones and the top 10 agree
 * (recall@10 ≈ 0.999). The graph (usearch-native.ts) is built from the same rows.
 */
export class Int8Rows {
  private readonly groups = new Map<string | null, RowGroup>();
  /** By key: the group holding the key's row, and the row's number in it. */
  private readonly groupOf: (RowGroup | undefined)[] = [];
  private readonly rowOf: number[] = [];

  constructor(readonly dimensions: number) {}

  /** The rows of one type, in the order of `keys`. */
  group(type: string | null): RowGroup | undefined {
    return this.groups.get(type);
  }

  /** Every type's rows. */
  allGroups(): RowGroup[] {
    return [...this.groups.values()];
  }

  private groupFor(type: string | null): RowGroup {
    let group = this.groups.get(type);
    if (!group) this.groups.set(type, (group = new RowGroup(this.dimensions)));
    return group;
  }

  /** Writes the key's row (`quantize()`d), in its type's group. */
  set(key: number, type: string | null, row: Int8Array): void {
    const current = this.groupOf[key];
    const group = this.groupFor(type);
    if (current !== group) {
      this.delete(key);
      this.groupOf[key] = group;
      this.rowOf[key] = group.append(key);
    }
    group.data.set(row, this.rowOf[key]! * this.dimensions);
  }

  /**
   * Room for `rows` more rows of `type` at once: a load that knows its counts grows each group once, instead of
   * by doubling, which left the copies it outgrew (as much again as the rows) for a collection that an idle
   * server does not run.
   */
  reserve(type: string | null, rows: number): void {
    this.groupFor(type).reserve(rows);
  }

  delete(key: number): void {
    const group = this.groupOf[key];
    if (!group) return;
    const moved = group.remove(this.rowOf[key]!);
    if (moved !== undefined) this.rowOf[moved] = this.rowOf[key]!;
    this.groupOf[key] = undefined;
  }

  row(key: number): Int8Array | undefined {
    const group = this.groupOf[key];
    if (!group) return undefined;
    const start = this.rowOf[key]! * this.dimensions;
    return group.data.subarray(start, start + this.dimensions);
  }

  /** The rows of the `count` keys from `first`, each at its key's place (zeros where a key is free), into `into`: for saving. */
  copyByKey(first: number, count: number, into: Int8Array): void {
    into.fill(0, 0, count * this.dimensions);
    for (let i = 0; i < count; i++) {
      const row = this.row(first + i);
      if (row) into.set(row, i * this.dimensions);
    }
  }

  /** Copies the rows of `keys`, in order, into `into` from its start. */
  gather(keys: readonly number[], into: Int8Array): void {
    keys.forEach((key, i) => into.set(this.row(key)!, i * this.dimensions));
  }
}

/** Rows of one group, packed: removing one moves the last into its place. */
export class RowGroup {
  data: Int8Array;
  /** The key of each row. */
  readonly keys: number[] = [];

  constructor(private readonly dimensions: number) {
    this.data = new Int8Array(dimensions * 64);
  }

  /** The packed rows, for a scan. */
  rows(): Int8Array {
    return this.data.subarray(0, this.keys.length * this.dimensions);
  }

  append(key: number): number {
    const end = (this.keys.length + 1) * this.dimensions;
    if (end > this.data.length) this.grow(Math.max(end, this.data.length * 2));
    return this.keys.push(key) - 1;
  }

  reserve(rows: number): void {
    const end = (this.keys.length + rows) * this.dimensions;
    if (end > this.data.length) this.grow(end);
  }

  private grow(length: number): void {
    const grown = new Int8Array(length);
    grown.set(this.data);
    this.data = grown;
  }

  /** Removes a row; answers the key whose row moved into its place, if one did. */
  remove(row: number): number | undefined {
    const last = this.keys.length - 1;
    const lastKey = this.keys.pop()!;
    if (row === last) return undefined;
    const d = this.dimensions;
    this.data.copyWithin(row * d, last * d, last * d + d);
    this.keys[row] = lastKey;
    return lastKey;
  }
}

/** The vector's int8 row: scaled by its largest component, which cosine ignores. */
export function quantize(vector: Float32Array): Int8Array {
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? 127 / max : 0;
  return Int8Array.from(vector, (x) => Math.round(x * scale));
}
