import { describe, expect, it } from "vitest";
import { countingEmbedder } from "../support/counting-embedder.ts";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

describe.skipIf(databaseUnavailable())("batch create (POST /api/v1/memory/batch)", () => {
  const embedder = countingEmbedder();
  const suite = serverWithUser({}, { embedder });

  it("stores the valid items when one is invalid, and answers every item in input order", async () => {
    const res = await suite.user.api.post("/api/v1/memory/batch", {
      memories: [
        { content: "first: likes mango", type: "preference" },
        { content: "second: gym on Tuesdays", tags: ["fitness"] },
        { content: "" },
        { content: { kind: "record", value: 3 } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual({ total: 4, successful: 3, failed: 1 });
    expect(res.body.results).toEqual([
      { success: true, id: expect.any(String) },
      { success: true, id: expect.any(String) },
      { success: false, error: { code: "VALIDATION_ERROR", message: "content must not be empty" } },
      { success: true, id: expect.any(String) },
    ]);
    const stored = await suite.user.api.get(`/api/v1/memories/${res.body.results[3].id}`);
    expect(stored.body.content).toEqual({ kind: "record", value: 3 });
    expect((await suite.user.api.get(`/api/v1/memories/${res.body.results[0].id}`)).body.type).toBe("preference");
  });

  it("accepts a bare array as well as {memories: [...]}", async () => {
    const res = await suite.user.api.post("/api/v1/memory/batch", [{ content: "from a bare array" }]);
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual({ total: 1, successful: 1, failed: 0 });
  });

  it("fails only the item whose fields have the wrong type or an unknown thread", async () => {
    const res = await suite.user.api.post("/api/v1/memory/batch", [
      { content: "good one" },
      { content: "bad tags", tags: "not-a-list" },
      { content: "bad thread", thread_id: "00000000-0000-4000-8000-000000000000" },
      { content: "unknown field", kind: "task" },
      "not an object",
      { content: "good two" },
    ]);
    expect(res.body.summary).toEqual({ total: 6, successful: 2, failed: 4 });
    expect(res.body.results.map((r: { success: boolean; error?: { message: string } }) => r.error?.message ?? "ok")).toEqual([
      "ok",
      "tags must be a list of strings",
      "thread_id does not name one of your threads",
      "kind is not a field of a memory",
      "item must be a JSON object",
      "ok",
    ]);
  });

  it("embeds the whole batch with one embedder call", async () => {
    embedder.calls.length = 0;
    const items = Array.from({ length: 50 }, (_, i) => ({ content: `batch memory number ${i} about kites` }));
    const res = await suite.user.api.post("/api/v1/memory/batch", { memories: items });
    expect(res.body.summary.successful).toBe(50);
    expect(embedder.calls).toEqual([50]);
  });

  it("stores 100 items, and refuses an empty batch or one of 101 as a whole", async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => ({ content: `item ${i}` }));
    expect((await suite.user.api.post("/api/v1/memory/batch", hundred)).body.summary.successful).toBe(100);
    for (const items of [[], [...hundred, { content: "one too many" }]]) {
      const res = await suite.user.api.post("/api/v1/memory/batch", { memories: items });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: "VALIDATION_ERROR",
        message: `memories must hold 1 to 100 items (it holds ${items.length})`,
      });
    }
  });

  it("refuses a body that is neither an array nor {memories: [...]}", async () => {
    for (const body of [{ content: "x" }, { memories: "x" }, { memories: [], extra: 1 }, 42]) {
      const res = await suite.user.api.post("/api/v1/memory/batch", body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
    // a field the body should not have is named
    const extra = await suite.user.api.post("/api/v1/memory/batch", { memories: [{ content: "x" }], bogus: 1 });
    expect(extra.body.error.message).toBe("bogus is not a field of a batch (memories, dedupe)");
  });

  it("makes batch memories searchable at once", async () => {
    const res = await suite.user.api.post("/api/v1/memory/batch", [{ content: "the kayak is stored in the garage rafters" }]);
    const search = await suite.user.api.get("/api/v1/memory/search?query=kayak%20garage");
    expect(search.body.results[0].id).toBe(res.body.results[0].id);
  });

  it("is batchCreateMemories over GraphQL, with the field of each error", async () => {
    const res = await suite.user.api.graphql(
      `mutation ($items: [CreateMemoryInput!]!) { batchCreateMemories(items: $items) {
         summary { total successful failed } results { success id memory { content } error { code message field } } } }`,
      { items: [{ content: "graphql batch one" }, { content: "x", type: "Not A Word!" }] },
    );
    expect(res.body.data.batchCreateMemories).toEqual({
      summary: { total: 2, successful: 1, failed: 1 },
      results: [
        { success: true, id: expect.any(String), memory: { content: "graphql batch one" }, error: null },
        {
          success: false,
          id: null,
          memory: null,
          error: { code: "VALIDATION_ERROR", message: expect.stringMatching(/^type must be a short lowercase word/), field: "type" },
        },
      ],
    });
  });
});
