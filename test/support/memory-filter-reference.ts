import { isoInstant } from "../../src/vectors/iso-instant.ts";
import type { FilterClause, MetadataTest, RangeOperator } from "../../src/vectors/filter-clause.ts";

/** The fields a filter reads, as a test's memories hold them. */
export interface FilterableMemory {
  type: string | null;
  tags: string[];
  threadId: string | null;
  metadata: Record<string, unknown>;
}

/**
 * What a filter means, written plainly: the reference every backend's evaluation is checked against. The value
 * at the path is reached through objects only; an array there is tested by its elements. (Lists of lists are
 * left out of the contract: SQL/JSON path and Qdrant unwrap them differently.)
 */
export function matchesFilter(clause: FilterClause, memory: FilterableMemory): boolean {
  switch (clause.kind) {
    case "and":
      return clause.clauses.every((part) => matchesFilter(part, memory));
    case "or":
      return clause.clauses.some((part) => matchesFilter(part, memory));
    case "not":
      return !matchesFilter(clause.clause, memory);
    case "type":
      return memory.type === clause.type;
    case "tags":
      return clause.tags.every((tag) => memory.tags.includes(tag));
    case "thread":
      return memory.threadId === clause.threadId;
    case "metadata": {
      const value = valueAt(memory.metadata, clause.path);
      const holds = value !== undefined && itemsOf(value).some((item) => passes(clause.test, item));
      // `exists: false` is the negation of `exists: true`
      return clause.test.op === "exists" ? holds === clause.test.exists : holds;
    }
  }
}

function valueAt(metadata: unknown, path: readonly string[]): unknown {
  let value = metadata;
  for (const key of path) {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

const itemsOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

const COMPARE: Record<RangeOperator, (a: number, b: number) => boolean> = {
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};

function passes(test: MetadataTest, item: unknown): boolean {
  switch (test.op) {
    case "exists":
      return item !== null;
    case "equals":
      return test.values.some((value) => item === value);
    case "range":
      return Object.entries(test.bounds).every(([operator, bound]) => {
        const [a, b] = test.kind === "number" ? [item, bound] : [typeof item === "string" ? isoInstant(item) : undefined, Date.parse(bound as string)];
        return typeof a === "number" && COMPARE[operator as RangeOperator](a, b as number);
      });
  }
}
