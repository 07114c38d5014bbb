import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, databaseUnderTest, serverWithUser } from "../support/server.ts";

/** Strings that have broken servers: unicode, NUL, lone surrogates, markup, long runs, number-ish text. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", " ", "\u0000", "a\u0000b", "\ud800", "\udfff x", "🧀".repeat(50), "<script>alert(1)</script>",
    "' OR 1=1 --", "NaN", "-1", "1e309", "null", "true", "0x10", "%00", "../../etc/passwd", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"),
  fc.string({ minLength: 500, maxLength: 3000 }),
);

/** Any JSON, nasty strings included, sometimes deep. */
const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(nastyString, tie("value"), { maxKeys: 5 }),
  ),
})).value;

const deep = fc.integer({ min: 30, max: 60 }).map((depth) => {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = { nested: value };
  return value;
});

/** A plausible memory body with some fields replaced, dropped or added. */
const memoryBody = fc
  .record(
    {
      content: fc.oneof(nastyString, anyJson, deep),
      type: fc.oneof(fc.constantFrom("preference", "task", "Journal", "two words"), nastyString, anyJson),
      tags: fc.oneof(fc.array(nastyString, { maxLength: 60 }), anyJson),
      metadata: fc.oneof(fc.dictionary(fc.string(), anyJson, { maxKeys: 8 }), anyJson, deep),
      thread_id: fc.oneof(fc.uuid(), nastyString, anyJson),
      is_archived: fc.oneof(fc.boolean(), anyJson),
      kind: anyJson,
      extra: anyJson,
    },
    { requiredKeys: [] },
  )
  .chain((body) => fc.oneof(fc.constant<unknown>(body), fc.constant<unknown>([body]), anyJson));

const queryString = fc
  .array(
    fc.tuple(
      fc.constantFrom("limit", "offset", "type", "tags", "thread_id", "is_archived", "query", "from_date", "to_date",
        "status", "include_memories", "delete_memories", "workspaceId", "x", "limit"),
      fc.oneof(nastyString, fc.integer().map(String), fc.constantFrom("101", "-1", "0", "true", "2025-01-01T00:00:00Z")),
    ),
    { maxLength: 6 },
  )
  // a lone surrogate has no UTF-8 form to percent-encode; the raw-text arbitraries send those in bodies
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.toWellFormed())}`).join("&"));

/** What the fuzzer reads back from an answer, when the answer is JSON at all. */
interface Answer {
  id?: string;
  error?: { code?: unknown };
  results?: { success: boolean; id?: string }[];
  data?: Partial<Record<"createMemory" | "legacyCreateMemory", { id?: string } | null>> & {
    batchCreateMemories?: { results?: { success: boolean; id?: string }[] } | null;
    deleteMemory?: boolean | null;
  };
}

type Body = { kind: "json"; value: unknown } | { kind: "raw"; text: string; type: string };

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 5, arbitrary: memoryBody.map((value) => ({ kind: "json" as const, value })) },
  { weight: 1, arbitrary: anyJson.map((value) => ({ kind: "json" as const, value })) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("raw" as const),
      text: fc.oneof(fc.string(), fc.constantFrom("{", '{"content": "x"', "[1,2", "\u0000", "")),
      type: fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", ""),
    }),
  },
);

const GRAPHQL = [
  "mutation ($input: CreateMemoryInput!) { createMemory(input: $input) { id } }",
  "mutation ($id: ID!, $input: UpdateMemoryInput!) { updateMemory(id: $id, input: $input) { id } }",
  "mutation ($id: ID!, $input: ReplaceMemoryInput!) { replaceMemory(id: $id, input: $input) { id } }",
  "mutation ($id: ID!) { deleteMemory(id: $id) }",
  "mutation ($items: [CreateMemoryInput!]!) { batchCreateMemories(items: $items) { results { success id } } }",
  "query ($filter: MemoryFilter, $limit: Int, $offset: Int) { memories(filter: $filter, limit: $limit, offset: $offset) { total } }",
  "query ($q: String!, $limit: Int, $filter: SearchFilter) { searchMemories(query: $q, limit: $limit, filter: $filter) { total } }",
  "query ($q: String!, $limit: Int, $threadId: ID) { recall(query: $q, limit: $limit, threadId: $threadId) { total } }",
  "mutation ($input: CreateThreadInput!) { createThread(input: $input) { id } }",
  "mutation ($id: ID!, $input: UpdateThreadInput!) { updateThread(id: $id, input: $input) { id } }",
  "query ($id: ID!) { memory(id: $id) { id } thread(id: $id) { id } }",
  "mutation ($name: String!) { createApiKey(name: $name) { apiKey { id } } }",
  "mutation ($input: LegacyCreateMemoryInput!) { legacyCreateMemory(input: $input) { id } }",
];

describe.skipIf(databaseUnavailable())("fuzzing every route and operation", () => {
  const suite = serverWithUser({ MAX_BODY_BYTES: "65536", MAX_CONTENT_CHARS: "2000" });
  const stored = new Set<string>(); // memories whose creation the server acknowledged and that were not deleted
  const known: string[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      const created = await suite.user.api.post("/api/v1/memory", { content: `seed ${i}` });
      stored.add(created.body.id);
      known.push(created.body.id);
    }
  });

  const ids = fc.oneof(fc.constantFrom(...["00000000-0000-4000-8000-000000000000", "not-an-id", "%2e%2e"]), fc.nat().map((n) => known[n % known.length]!));

  async function send(method: string, path: string, b?: Body) {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${suite.user.key}` } };
    if (b && method !== "GET" && method !== "DELETE") {
      const text = b.kind === "json" ? JSON.stringify(b.value) ?? "null" : b.text;
      const type = b.kind === "json" ? "application/json" : b.type;
      init.body = text;
      if (type) init.headers = { ...init.headers, "content-type": type };
    }
    const res = await fetch(suite.server.url + path, init);
    const text = await res.text();
    let json: Answer | undefined;
    try {
      json = JSON.parse(text) as Answer;
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  }

  function acknowledge(method: string, path: string, status: number, json: Answer | undefined): void {
    if (method === "POST" && (path.startsWith("/api/v1/memory?") || path === "/api/v1/memory" || path.startsWith("/api/v1/memories")) && status === 201) {
      stored.add(json!.id!);
      known.push(json!.id!);
    }
    if (method === "POST" && path.startsWith("/api/v1/memory/batch") && status === 200) {
      for (const r of json!.results ?? []) if (r.success) stored.add(r.id!), known.push(r.id!);
    }
    if (method === "DELETE" && path.startsWith("/api/v1/memories/") && status === 200) {
      stored.delete(decodeURIComponent(path.split("/")[4]!.split("?")[0]!));
    }
  }

  const restRequest = fc.oneof(
    fc.tuple(fc.constant("POST"), fc.constant("/api/v1/memory"), body),
    fc.tuple(fc.constant("GET"), queryString.map((q) => `/api/v1/memory?${q}`), fc.constant(undefined)),
    fc.tuple(fc.constant("GET"), queryString.map((q) => `/api/v1/memory/search?${q}`), fc.constant(undefined)),
    fc.tuple(fc.constant("GET"), queryString.map((q) => `/api/v1/memory/recall?${q}`), fc.constant(undefined)),
    fc.tuple(fc.constant("POST"), fc.constant("/api/v1/memory/recall"), body),
    fc.tuple(fc.constant("POST"), fc.constant("/api/v1/memory/batch"), body),
    fc.tuple(fc.constantFrom("GET", "PATCH", "PUT", "DELETE"), ids.map((id) => `/api/v1/memories/${encodeURIComponent(id)}`), body),
    fc.tuple(fc.constant("POST"), fc.constant("/api/v1/threads"), body),
    fc.tuple(fc.constant("GET"), queryString.map((q) => `/api/v1/threads?${q}`), fc.constant(undefined)),
    fc.tuple(fc.constantFrom("GET", "PATCH", "DELETE"), fc.tuple(ids, queryString).map(([id, q]) => `/api/v1/threads/${encodeURIComponent(id)}?${q}`), body),
    fc.tuple(fc.constant("POST"), fc.constant("/api/v1/memories"), body),
    fc.tuple(fc.constant("GET"), queryString.map((q) => `/api/v1/memories?${q}`), fc.constant(undefined)),
  );

  // the same handlers meet either database; on PostgreSQL, whose driver's errors are what differs, half as many
  // requests (each takes it about twice as long as the embedded database's)
  const runs = (embedded: number) => (databaseUnderTest() === "postgres" ? embedded / 2 : embedded);

  it("answers 2,000 random or mutated REST requests with no 5xx (1,000 on PostgreSQL)", async () => {
    await fc.assert(
      fc.asyncProperty(restRequest, async ([method, path, b]) => {
        const res = await send(method, path, b);
        expect(res.status, `${method} ${path} -> ${res.text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) expect(res.json?.error?.code, res.text.slice(0, 200)).toMatch(/^[A-Z_]+$/);
        acknowledge(method, path, res.status, res.json);
      }),
      { numRuns: runs(2000) },
    );
  });

  it("answers 1,000 random GraphQL operations with no 5xx (500 on PostgreSQL)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...GRAPHQL),
        fc.dictionary(fc.constantFrom("input", "id", "items", "filter", "limit", "offset", "q", "threadId", "name"), fc.oneof(memoryBody, anyJson, ids)),
        async (query, variables) => {
          const res = await send("POST", "/graphql", { kind: "json", value: { query, variables } });
          expect(res.status, `${query} ${JSON.stringify(variables).slice(0, 200)} -> ${res.text.slice(0, 300)}`).toBeLessThan(500);
          const data = res.json?.data ?? {};
          if (data.createMemory?.id) stored.add(data.createMemory.id), known.push(data.createMemory.id);
          if (data.legacyCreateMemory?.id) stored.add(data.legacyCreateMemory.id), known.push(data.legacyCreateMemory.id);
          for (const r of data.batchCreateMemories?.results ?? []) if (r.success) stored.add(r.id!), known.push(r.id!);
          if (data.deleteMemory === true) stored.delete(variables.id as string);
        },
      ),
      { numRuns: runs(1000) },
    );
  });

  it("leaves the database holding exactly the memories whose creation was acknowledged", async () => {
    const rows = await suite.server.app.db.sql.query<{ id: string }>("SELECT id FROM memories WHERE user_id = $1::uuid", [suite.user.userId]);
    expect(new Set(rows.map((r) => r.id))).toEqual(stored);
    const orphans = await suite.server.app.db.sql.query("SELECT 1 FROM memory_terms t LEFT JOIN memories m ON m.id = t.memory_id WHERE m.id IS NULL");
    expect(orphans).toEqual([]);
  });
});
