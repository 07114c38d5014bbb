/**
 * A checked memory filter (see domain/memory-filter.ts, which makes one from a client's input): the form every
 * index evaluates, in SQL, as a Qdrant condition, or in memory.
 */
/** The most keys a metadata path may have. */
export const MAX_PATH_KEYS = 8;
/** A key of a metadata path. Keys are matched by name on every backend; an all-digit key would be read as an array index by some of them. */
export const PATH_KEY = /^(?![0-9]+$)[A-Za-z0-9_-]{1,64}$/;

export type Scalar = string | number | boolean;

export type RangeOperator = "gt" | "gte" | "lt" | "lte";
export const RANGE_OPERATORS: readonly RangeOperator[] = ["gt", "gte", "lt", "lte"];

/** What a metadata condition tests, once checked. Date bounds are ISO 8601 instants in UTC (`…Z`). */
export type MetadataTest =
  | { op: "equals"; values: Scalar[] }
  | { op: "range"; kind: "number"; bounds: Partial<Record<RangeOperator, number>> }
  | { op: "range"; kind: "date"; bounds: Partial<Record<RangeOperator, string>> }
  | { op: "exists"; exists: boolean };

/** A checked filter: what the SQL, Qdrant and in-memory evaluations all read. */
export type FilterClause =
  | { kind: "and" | "or"; clauses: FilterClause[] }
  | { kind: "not"; clause: FilterClause }
  | { kind: "type"; type: string }
  | { kind: "tags"; tags: string[] }
  | { kind: "thread"; threadId: string }
  | { kind: "metadata"; path: string[]; test: MetadataTest };
