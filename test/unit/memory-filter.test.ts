import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.ts";
import { checkMemoryFilter, FILTER_LIMITS, type MemoryFilterInput } from "../../src/domain/memory-filter.ts";
import { isoInstant } from "../../src/vectors/iso-instant.ts";

/** The error a filter is refused with: its field and reason. */
function refusal(input: unknown): { field: string | undefined; message: string } {
  try {
    checkMemoryFilter(input as MemoryFilterInput);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "VALIDATION_ERROR") throw error;
    return { field: error.field, message: error.message };
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

const nested = (depth: number): MemoryFilterInput => (depth === 1 ? { type: "task" } : { not: nested(depth - 1) });

describe("checking a memory filter", () => {
  it("answers nothing for an empty filter, and one clause per condition otherwise", () => {
    expect(checkMemoryFilter({})).toBeUndefined();
    expect(checkMemoryFilter({ type: "task", metadata: [{ path: "a.b", gte: 1, lt: 3 }] })).toEqual({
      kind: "and",
      clauses: [
        { kind: "type", type: "task" },
        { kind: "metadata", path: ["a", "b"], test: { op: "range", kind: "number", bounds: { gte: 1, lt: 3 } } },
      ],
    });
    expect(checkMemoryFilter({ metadata: [{ path: "due", lt: "2026-05-01T12:00:00+02:00" }] })).toEqual({
      kind: "metadata",
      path: ["due"],
      test: { op: "range", kind: "date", bounds: { lt: "2026-05-01T10:00:00.000Z" } },
    });
  });

  it.each([
    [{ metadata: [{ path: "a", like: "x" }] }, "metadata[0].like", "is not an operator"],
    [{ metadata: [{ path: "a" }] }, "metadata[0]", "needs an operator"],
    // it said "needs an operator" of a condition that gave one (outside probe)
    [{ metadata: [{ path: "a", eq: null }] }, "metadata[0].eq", "use exists: false"],
    [{ metadata: [{ path: "a", eq: 1, in: [1] }] }, "metadata[0]", "takes one of eq, in and exists"],
    [{ metadata: [{ path: "a", eq: 1, gt: 0 }] }, "metadata[0]", "not a range with eq"],
    [{ metadata: [{ path: "a", gt: "yesterday" }] }, "metadata[0].gt", "ISO 8601"],
    [{ metadata: [{ path: "a", gt: 1, lt: "2026-01-01" }] }, "metadata[0].gt", "like the other bounds"],
    [{ metadata: [{ path: "a", eq: { x: 1 } }] }, "metadata[0].eq", "a string, a number or a boolean"],
    [{ metadata: [{ path: "a", in: [] }] }, "metadata[0].in", "non-empty list"],
    [{ metadata: [{ path: "a", in: Array.from({ length: 101 }, (_, i) => i) }] }, "metadata[0].in", "at most 100"],
    [{ metadata: [{ path: "a", exists: "yes" }] }, "metadata[0].exists", "true or false"],
    [{ metadata: [{ path: "a..b", eq: 1 }] }, "metadata[0].path", "dot-separated keys"],
    [{ metadata: [{ path: "items.0", eq: 1 }] }, "metadata[0].path", "not digits alone"],
    [{ metadata: [] }, "metadata", "non-empty list"],
    [{ or: [] }, "or", "non-empty list of filters"],
    [{ or: [{}] }, "or[0]", "at least one condition"],
    [{ and: [{ type: "a" }, { not: {} }] }, "and[1].not", "at least one condition"],
    [{ and: [{ threadId: "nope" }] }, "and[0].threadId", "thread id"],
    [{ tags: "a" }, "tags", "non-empty list of strings"],
    // the database cannot compare what it cannot store: refused here rather than failing the statement (a 500)
    [{ metadata: [{ path: "a", eq: "a\u0000b" }] }, "metadata[0].eq", "must not contain NUL"],
    [{ metadata: [{ path: "a", in: [1, "\ud800"] }] }, "metadata[0].in[1]", "lone surrogate"],
    [{ or: [{ type: "\u0000" }, { tags: ["ok", "\udfff"] }] }, "or[0].type", "must not contain NUL"],
    [{ tags: ["ok", "\udfff"] }, "tags[1]", "lone surrogate"],
    [{ colour: "red" }, "colour", "is not a filter field"],
    [nested(FILTER_LIMITS.maxDepth + 2), `${"not.".repeat(FILTER_LIMITS.maxDepth + 1).slice(0, -1)}`, "nests and/or/not deeper than 5 levels"],
    [{ metadata: Array.from({ length: 33 }, () => ({ path: "a", exists: true })) }, "metadata[32]", "more than 32 conditions"],
  ])("refuses %j at %s", (input, field, reason) => {
    const { field: at, message } = refusal(input);
    expect(at).toBe(field);
    expect(message).toContain(reason);
  });

  it("takes and/or/not nested as many levels deep as the limit", () => {
    expect(checkMemoryFilter(nested(FILTER_LIMITS.maxDepth + 1))).toBeDefined();
  });
});

describe("reading an ISO 8601 date as memory_instant() does", () => {
  it.each([
    ["2026-05-01", Date.UTC(2026, 4, 1)],
    ["2026-05-01 10:00", Date.UTC(2026, 4, 1, 10)],
    ["2026-05-01T10:00:00.250+02:00", Date.UTC(2026, 4, 1, 8, 0, 0, 250)],
    // microseconds count, as in the database: this instant is after the one above
    ["2026-05-01T08:00:00.250001Z", Date.UTC(2026, 4, 1, 8, 0, 0, 250) + 0.001],
    ["2026-02-30", undefined],
    ["2026-05-01T24:00:00Z", undefined],
  ])("reads %s", (text, instant) => {
    const read = isoInstant(text);
    if (instant === undefined) expect(read).toBeUndefined();
    else expect(read).toBeCloseTo(instant, 4);
  });
});
