import { beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

const deep = (depth: number): unknown => (depth === 0 ? "leaf" : { next: deep(depth - 1) });

describe.skipIf(databaseUnavailable())("bad input", () => {
  const suite = serverWithUser({ MAX_BODY_BYTES: "65536", MAX_CONTENT_CHARS: "1000" });
  let memoryId: string;

  beforeAll(async () => {
    memoryId = (await suite.user.api.post("/api/v1/memory", { content: "target" })).body.id;
  });

  const expectError = (res: { status: number; body: any }, status: number, code: string, message: RegExp) => {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code, message: expect.stringMatching(message) } });
  };

  describe("create (POST /api/v1/memory): a 400 VALIDATION_ERROR that names the field", () => {
    it.each([
      ["missing content", { type: "task" }, /^content is required/],
      ["empty content", { content: "" }, /^content must not be empty/],
      ["blank content", { content: "   \n\t " }, /^content must not be empty/],
      ["content of zero-width characters only", { content: " \u200b\u200d\u2060 " }, /^content must not be empty/],
      ["null content", { content: null }, /^content is required/],
      ["content of the wrong type", { content: 42 }, /^content must be a string or a JSON object/],
      ["content as an array", { content: ["a"] }, /^content must be a string or a JSON object/],
      ["content too long", { content: "x".repeat(1001) }, /^content must be at most 1000 characters/],
      ["a structured record that is empty", { content: {} }, /^content must not be an empty object/],
      ["a structured record with NUL", { content: { k: "a\u0000b" } }, /^content\.k must not contain NUL/],
      ["content with NUL", { content: "a\u0000b" }, /^content must not contain NUL/],
      ["content with a lone surrogate", { content: "a\ud800b" }, /^content must be valid Unicode/],
      ["tags not a list", { content: "x", tags: "a,b" }, /^tags must be a list of strings/],
      ["a tag of the wrong type", { content: "x", tags: ["a", 3] }, /^tags\[1\] must be a string/],
      ["an empty tag", { content: "x", tags: ["a", " "] }, /^tags\[1\] must not be empty/],
      ["a tag of a zero-width space", { content: "x", tags: ["a", "\u200b"] }, /^tags\[1\] must not be empty/],
      ["a tag too long", { content: "x", tags: ["t".repeat(65)] }, /^tags\[0\] must be at most 64 characters/],
      ["a tag too long, in characters beyond the BMP", { content: "x", tags: ["😀".repeat(65)] }, /^tags\[0\] must be at most 64 characters/],
      ["too many tags", { content: "x", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, /^tags must have at most 50/],
      ["metadata not an object", { content: "x", metadata: [1, 2] }, /^metadata must be a JSON object/],
      ["metadata too large", { content: "x", metadata: { blob: "y".repeat(17_000) } }, /^metadata must be at most 16384 bytes/],
      ["metadata nested too deeply", { content: "x", metadata: deep(40) }, /^metadata(\.next)+ is nested too deeply/],
      ["metadata with NUL in a key", { content: "x", metadata: { "a\u0000": 1 } }, /^metadata has a key that must not contain NUL/],
      ["type not a word", { content: "x", type: "two words" }, /^type must be a short lowercase word/],
      ["type of the wrong type", { content: "x", type: 7 }, /^type must be a string/],
      ["a thread that does not exist", { content: "x", thread_id: "00000000-0000-4000-8000-000000000000" }, /^thread_id does not name one of your threads/],
      ["a thread id that is not an id", { content: "x", thread_id: "thread-1" }, /^thread_id does not name one of your threads/],
      ["is_archived not a boolean", { content: "x", is_archived: "yes" }, /^is_archived must be true or false/],
      ["an unknown field", { content: "x", kind: "task" }, /^kind is not a field of a memory/],
      ["a body that is not an object", ["content"], /^body must be a JSON object/],
    ])("%s", async (_name, body, message) => {
      expectError(await suite.user.api.post("/api/v1/memory", body), 400, "VALIDATION_ERROR", message);
    });
  });

  it("PATCH refuses null for fields that cannot be cleared", async () => {
    expectError(await suite.user.api.patch(`/api/v1/memories/${memoryId}`, { content: null }), 400, "VALIDATION_ERROR", /^content cannot be null/);
    expectError(await suite.user.api.patch(`/api/v1/memories/${memoryId}`, { is_archived: null }), 400, "VALIDATION_ERROR", /^is_archived cannot be null/);
  });

  it("malformed JSON is 400 INVALID_JSON", async () => {
    const res = await suite.user.api.request("POST", "/api/v1/memory", {
      raw: '{"content": "unterminated',
      headers: { "content-type": "application/json" },
    });
    expectError(res, 400, "INVALID_JSON", /not valid JSON/);
  });

  it("a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const res = await suite.user.api.request("POST", "/api/v1/memory", { raw: "content=x", headers: { "content-type": type } });
      expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE", /JSON/);
    }
  });

  it("a missing body is 400", async () => {
    const res = await suite.user.api.request("POST", "/api/v1/memory", { headers: { "content-type": "application/json" } });
    expectError(res, 400, "VALIDATION_ERROR", /body is required/);
  });

  it("an oversized body is 413 PAYLOAD_TOO_LARGE, on REST and GraphQL", async () => {
    const big = JSON.stringify({ content: "x".repeat(70_000) });
    const rest = await suite.user.api.request("POST", "/api/v1/memory", { raw: big, headers: { "content-type": "application/json" } });
    expectError(rest, 413, "PAYLOAD_TOO_LARGE", /at most 65536 bytes/);
    const gql = await suite.user.api.request("POST", "/graphql", {
      raw: JSON.stringify({ query: `{ me { id } }`, variables: { pad: "x".repeat(70_000) } }),
      headers: { "content-type": "application/json" },
    });
    expect(gql.status).toBe(413);
    expect(gql.body.errors?.[0]?.extensions?.code).toBe("PAYLOAD_TOO_LARGE");
  });

  describe("query strings", () => {
    it.each([
      ["limit over 100", "limit=101", /^limit must be a whole number from 1 to 100/],
      ["negative limit", "limit=-1", /^limit must be a whole number from 1 to 100/],
      ["limit not a number", "limit=abc", /^limit must be a whole number/],
      ["a fractional limit", "limit=2.5", /^limit must be a whole number/],
      ["negative offset", "offset=-3", /^offset must be a whole number of 0 or more/],
      ["a huge offset", "offset=99999999999999", /^offset must be at most 2147483647$/],
      ["an offset past GraphQL's Int", "offset=2147483648", /^offset must be at most 2147483647$/],
      ["is_archived not a boolean", "is_archived=maybe", /^is_archived must be true or false/],
      ["a parameter given twice", "limit=5&limit=10", /^limit is given more than once/],
      ["an unknown parameter", "page=2", /^page is not a query parameter/],
      ["GraphQL's spelling of a parameter, echoed as sent", "threadId=abc", /^threadId is not a query parameter of this route \(known: .*thread_id/],
      ["a thread_id that is not an id", "thread_id=abc", /^thread_id must be a thread id/],
      ["a type no memory can have (NUL)", "type=%00", /^type must be a short lowercase word/],
      ["a type no memory can have (punctuation)", "type=a%20b", /^type must be a short lowercase word/],
    ])("%s", async (_name, query, message) => {
      expectError(await suite.user.api.get(`/api/v1/memory?${query}`), 400, "VALIDATION_ERROR", message);
    });

    it("search checks its type filter by the same rule", async () => {
      const res = await suite.user.api.get("/api/v1/memory/search?query=target&type=%00");
      expectError(res, 400, "VALIDATION_ERROR", /^type must be a short lowercase word/);
    });
  });

  it("counts characters as code points everywhere: a tag of 64 emoji is taken, as content of as many is", async () => {
    const res = await suite.user.api.post("/api/v1/memory", { content: "😀".repeat(1000), tags: ["😀".repeat(64)] });
    expect(res.status).toBe(201);
    await suite.user.api.delete(`/api/v1/memories/${res.body.id}`);
  });

  describe("instants the database cannot store (years 0001 to 9999 only) are a 400, never a 500", () => {
    const cursorAt = (instant: string) => Buffer.from(`${instant}|00000000-0000-4000-8000-000000000000`).toString("base64url");

    it.each([
      ["search's from_date in year 0000", "/api/v1/memory/search?query=target&from_date=0000-01-01T00:00:00Z", /^from_date must be an ISO 8601 timestamp with a time and a zone \(2026-01-31T09:00:00Z\), between 0001-01-01 and 9999-12-31/],
      ["search's from_date as a date alone", "/api/v1/memory/search?query=target&from_date=2020-01-01", /^from_date must be an ISO 8601 timestamp with a time and a zone/],
      ["search's to_date in 1 BC by its zone", "/api/v1/memory/search?query=target&to_date=0001-01-01T00:00:00%2B01:00", /^to_date must be an ISO 8601 timestamp with a time and a zone/],
      ["a metadata date bound in year 0000", `/api/v1/memory?filter=${encodeURIComponent('{"metadata":[{"path":"when","gte":"0000-01-01"}]}')}`, /^metadata\[0\]\.gte must be a date between/],
      ["a cursor in year 0000", `/api/v1/memory?cursor=${cursorAt("0000-01-01T00:00:00Z")}`, /^cursor is not a cursor of this list/],
      ["a cursor past year 9999", `/api/v1/memory?cursor=${cursorAt("+275760-09-13T00:00:00.000Z")}`, /^cursor is not a cursor of this list/],
      ["a cursor on a day the month does not have", `/api/v1/memory?cursor=${cursorAt("2026-02-30T00:00:00.000Z")}`, /^cursor is not a cursor of this list/],
    ])("%s", async (_name, path, message) => {
      expectError(await suite.user.api.get(path), 400, "VALIDATION_ERROR", message);
    });

    it("on GraphQL too: a DateTime argument and a cursor", async () => {
      const search = await suite.user.api.graphql(`{ searchMemories(query: "target", filter: { fromDate: "0000-01-01T00:00:00Z" }) { total } }`);
      expect(search.status).toBe(400);
      expect(search.body.errors?.[0]?.message).toMatch(/DateTime must be between 0001-01-01 and 9999-12-31/);
      const page = await suite.user.api.graphql(`query($after: String) { memoriesConnection(first: 2, after: $after) { edges { cursor } } }`, {
        after: cursorAt("0000-01-01T00:00:00Z"),
      });
      expect(page.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
      const february = await suite.user.api.graphql(`query($after: String) { memoriesConnection(first: 2, after: $after) { edges { cursor } } }`, {
        after: cursorAt("2026-02-30T00:00:00.000Z"),
      });
      expect(february.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
    });
  });

  it("an unknown route is 404 and a known route with the wrong method is 405 with Allow", async () => {
    expectError(await suite.user.api.get("/api/v1/nothing-here"), 404, "NOT_FOUND", /No route/);
    const res = await suite.user.api.delete("/api/v1/memory");
    expectError(res, 405, "METHOD_NOT_ALLOWED", /DELETE is not allowed/);
    expect(res.headers.get("allow")).toBe("POST, GET, HEAD");
  });

  // read against a base, `//evil/api/v1/memory` named a host and served /api/v1/memory: past a proxy's rule on the path
  it("reads a path that starts with // or /\\ as a path, not as a host before one", async () => {
    for (const path of ["//evil/api/v1/memory", "/\\evil/api/v1/memory", "//evil/metrics"]) {
      expectError(await suite.user.api.get(path), 404, "NOT_FOUND", /No route/);
    }
  });

  // walked recursively, a filter nested 3 000 deep overflowed the stack (a 500): JSON is refused past 64 levels first
  it("refuses JSON nested deeper than 64 levels with 400, on REST, its filter parameter, GraphQL and MCP", async () => {
    // written out, not stringified: JSON.stringify itself overflows at such depths
    const deep = (levels: number) => `${'{"not":'.repeat(levels)}{"type":"x"}${"}".repeat(levels)}`;
    const json = { "content-type": "application/json" };
    const send = (path: string, text: string, headers: Record<string, string> = json) => suite.user.api.post(path, undefined, { raw: text, headers });
    const body = await send("/api/v1/memory/search", `{"query":"x","filter":${deep(3_000)}}`);
    expectError(body, 400, "VALIDATION_ERROR", /^The request body nests deeper than 64 levels$/);
    const param = await suite.user.api.get(`/api/v1/memory/search?query=x&filter=${encodeURIComponent(deep(200))}`);
    expectError(param, 400, "VALIDATION_ERROR", /^filter nests deeper than 64 levels$/);
    const query = JSON.stringify("query ($f: MemoryFilter) { memories(filter: $f) { total } }");
    const gql = await send("/graphql", `{"query":${query},"variables":{"f":${deep(5_000)}}}`);
    expect(gql.status).toBe(400);
    expect(gql.text).toContain("The request body nests deeper than 64 levels");
    const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_memories","arguments":{"query":"x","filter":${deep(3_000)}}}}`;
    const mcp = await send("/mcp", call, { ...json, accept: "application/json, text/event-stream" });
    expect(mcp.status).toBe(400);
    expect(mcp.text).toContain("nests deeper than 64 levels");
    // within the limit, the filter's own rule still names the field
    const shallow = await send("/api/v1/memory/search", `{"query":"x","filter":${deep(20)}}`);
    expectError(shallow, 400, "VALIDATION_ERROR", /nests and\/or\/not deeper than 5 levels/);
  });

  it("names a field called __proto__ or constructor as it is called, in a body and in a filter", async () => {
    const raw = (text: string) => suite.user.api.post("/api/v1/memory", undefined, { raw: text, headers: { "content-type": "application/json" } });
    expectError(await raw('{"content":"x","__proto__":{"type":"task"}}'), 400, "VALIDATION_ERROR", /^__proto__ is not a field of a memory/);
    expectError(await raw('{"content":"x","constructor":1}'), 400, "VALIDATION_ERROR", /^constructor is not a field of a memory/);
    const filter = encodeURIComponent('{"constructor":{"a":1}}');
    expectError(await suite.user.api.get(`/api/v1/memory?filter=${filter}`), 400, "VALIDATION_ERROR", /^constructor is not a (filter )?field/);
  });

  it("none of the above wrote anything", async () => {
    const res = await suite.user.api.get("/api/v1/memory?limit=100");
    expect(res.body.total).toBe(1);
    expect(res.body.memories[0].content).toBe("target");
  });
});
