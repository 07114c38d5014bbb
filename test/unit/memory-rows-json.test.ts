import { describe, expect, it } from "vitest";
import { memoriesFromJson } from "../../src/domain/memory-rows.ts";

describe("memories read through json_agg", () => {
  it("answers none for no rows (json_agg's null)", () => {
    expect(memoriesFromJson(null)).toEqual([]);
  });

  it("turns times in milliseconds since 1970 into dates, and keeps every other field as it came", () => {
    const row = {
      id: "0198a3f2-0000-7000-8000-000000000001",
      userId: "0198a3f2-0000-7000-8000-000000000002",
      content: "likes tea",
      data: { drink: "tea" },
      type: "preference",
      tags: ["a", "b"],
      metadata: { n: 1 },
      threadId: null,
      isArchived: false,
      workspaceId: null,
      legacyUserId: null,
      embedder: "builtin-hash-v1:512",
      expiresAt: null,
      createdAt: Date.UTC(2026, 10, 28, 8, 12, 0, 123),
      updatedAt: Date.parse("0001-01-01T00:00:00.000Z"),
    };
    const expiring = { ...row, id: "0198a3f2-0000-7000-8000-000000000003", expiresAt: Date.parse("9999-12-31T23:59:59.999Z") };
    const [memory, other] = memoriesFromJson(JSON.stringify([row, expiring]));
    expect(memory).toEqual({
      ...row,
      embedding: null,
      createdAt: new Date(Date.UTC(2026, 10, 28, 8, 12, 0, 123)),
      updatedAt: new Date("0001-01-01T00:00:00Z"),
      expiresAt: null,
    });
    expect(other!.expiresAt!.toISOString()).toBe("9999-12-31T23:59:59.999Z");
  });
});
