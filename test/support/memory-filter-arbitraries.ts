import fc from "fast-check";
import type { MemoryFilterInput, MetadataConditionInput } from "../../src/domain/memory-filter.ts";
import type { FilterableMemory } from "./memory-filter-reference.ts";

/**
 * Random memories and filters for the filter contract: few keys and values, so that filters tell memories apart
 * (a filter that matches all or none says little), and only flat lists (lists of lists are outside the contract),
 * which may hold nulls and objects (no path reaches into those).
 */
export const THREADS = ["6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a01", "6f1c1a52-8d1e-4c3e-9a51-0d2b8f0c1a02"];
const KEYS = ["project", "priority", "due", "nested"];
const STRINGS = ["apollo", "gemini", "", "2026-05-01"];
const DATES = ["2026-05-01", "2026-05-01T10:00:00Z", "2026-05-01T10:00:00.250+02:00", "2026-05-01T08:00:00.250001Z", "2026-04-30 23:30:00", "2026-06-15T00:00:00Z"];

const scalar = fc.oneof(
  fc.constantFrom(...STRINGS, ...DATES),
  fc.integer({ min: -2, max: 4 }),
  fc.constantFrom(0.5, 2.5, 3.0),
  fc.boolean(),
);
const leaf = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.oneof({ weight: 6, arbitrary: scalar }, fc.constant(null), fc.dictionary(fc.constantFrom(...KEYS), scalar, { maxKeys: 1 })),
      { maxLength: 3 },
    ),
  },
);
const metadata = fc.dictionary(
  fc.constantFrom(...KEYS),
  fc.oneof({ weight: 4, arbitrary: leaf }, { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), leaf, { maxKeys: 2 }) }),
  { maxKeys: 3 },
);
export const memory: fc.Arbitrary<FilterableMemory> = fc.record({
  type: fc.constantFrom("task", "note", null),
  tags: fc.subarray(["t1", "t2", "t3"]),
  threadId: fc.constantFrom(...THREADS, null),
  metadata,
});

const path = fc.oneof(fc.constantFrom(...KEYS), fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...KEYS)).map(([a, b]) => `${a}.${b}`));
const numberBound = fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constant(2.5));
const bounds = <T>(bound: fc.Arbitrary<T>) =>
  fc
    .record({ gt: bound, gte: bound, lt: bound, lte: bound }, { requiredKeys: [] })
    .filter((range) => Object.keys(range).length > 0);
const condition: fc.Arbitrary<MetadataConditionInput> = fc.oneof(
  fc.record({ path, eq: scalar }),
  fc.record({ path, in: fc.array(scalar, { minLength: 1, maxLength: 3 }) }),
  fc.record({ path, exists: fc.boolean() }),
  fc.tuple(path, bounds(numberBound)).map(([p, range]) => ({ path: p, ...range })),
  fc.tuple(path, bounds(fc.constantFrom(...DATES))).map(([p, range]) => ({ path: p, ...range })),
);
export const { filter } = fc.letrec<{ filter: MemoryFilterInput }>((tie) => ({
  filter: fc.oneof(
    { maxDepth: 3, withCrossShrink: true },
    fc.record(
      {
        type: fc.constantFrom("task", "note"),
        tags: fc.subarray(["t1", "t2", "t3"], { minLength: 1 }),
        threadId: fc.constantFrom(...THREADS),
        metadata: fc.array(condition, { minLength: 1, maxLength: 2 }),
      },
      { requiredKeys: [] },
    ).filter((node) => Object.keys(node).length > 0),
    fc.record({ and: fc.array(tie("filter"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ or: fc.array(tie("filter"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie("filter") }),
  ),
}));

/** Limits for random filters, which may be larger than a client's may be (the limits have tests of their own). */
export const ROOMY = { maxDepth: 10, maxConditions: 1_000, maxInValues: 100 };
