import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { databaseAgnosticRun, serverWithUser } from "../support/server.ts";

const expectRefused = (res: { status: number; body: any }, message: RegExp) => {
  expect(res.status).toBe(400);
  expect(res.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
  expect(res.body.errors?.[0]?.message).toMatch(message);
  expect(res.body.data).toBeUndefined();
};

// one server and user for the suites on default settings (a server start is most of what they cost)
const suite = serverWithUser();

describe.runIf(databaseAgnosticRun())("GraphQL limits", () => {
  it("refuses a query nested too deeply", async () => {
    let selection = "id";
    for (let i = 0; i < 6; i++) selection = `thread { memories { ${selection} } }`; // depth 14, cheap otherwise
    expectRefused(await suite.user.api.graphql(`{ memories { items { ${selection} } } }`), /depth/i);
  });

  it("refuses too many aliases", async () => {
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: me { id }`).join(" ");
    expectRefused(await suite.user.api.graphql(`{ ${aliases} }`), /aliases/i);
  });

  it("refuses a query that would cost too much", async () => {
    let deep = "id content data type tags metadata createdAt updatedAt";
    for (let i = 0; i < 4; i++) deep = `thread { memories { ${deep} } }`; // depth 10: within the depth limit
    const wide = Array.from({ length: 14 }, (_, i) => `q${i}: memories { items { ${deep} } }`).join(" ");
    expectRefused(await suite.user.api.graphql(`{ ${wide} }`), /cost/i);
  });

  it("counts a list's selection as many times as its limit asks, with the request's variables", async () => {
    // a thread of 100 memories (a user of its own: other tests count theirs): three nested pages of 100 would
    // answer a million memories
    const { api } = await suite.server.newUser();
    const { body } = await api.post("/api/v1/threads", { title: "cost" });
    const items = Array.from({ length: 100 }, (_, i) => ({ content: `cost ${i}`, threadId: body.id }));
    expect((await api.graphql(`mutation($items: [CreateMemoryInput!]!) { batchCreateMemories(items: $items) { summary { successful } } }`, { items })).body.data?.batchCreateMemories.summary.successful).toBe(100);
    const nested = `query($limit: Int) { memories(limit: $limit) { items { thread { memories(limit: $limit) { thread { memories(limit: $limit) { id content } } } } } } }`;
    // the same document first cheap, then costly: a cost kept with the document would let the second through
    const cheap = await api.graphql(nested, { limit: 3 });
    expect(cheap.body.errors).toBeUndefined();
    expect(cheap.body.data.memories.items).toHaveLength(3);
    const costly = await api.graphql(nested, { limit: 100 });
    expectRefused(costly, /costs \d+, above .* 50000/);
    expect(costly.body.errors?.[0]?.extensions).toMatchObject({ cost: { max: 50000, actual: expect.any(Number) } });
    expectRefused(await api.graphql(nested.replace("query($limit: Int) ", "").replaceAll("$limit", "100")), /cost/);
  });

  it("counts a batch's results once per item, and runs nothing of a batch it refuses", async () => {
    const { api } = await suite.server.newUser();
    const { body } = await api.post("/api/v1/threads", { title: "batch cost" });
    const items = Array.from({ length: 100 }, (_, i) => ({ content: `batch cost ${i}`, threadId: body.id }));
    const costly = await api.graphql(
      `mutation($items: [CreateMemoryInput!]!) { batchCreateMemories(items: $items) { results { memory { thread { memories(limit: 100) { thread { memories(limit: 100) { id } } } } } } } }`,
      { items },
    );
    expectRefused(costly, /cost/);
    expect((await api.get(`/api/v1/threads/${body.id}`)).body.thread.memory_count).toBe(0);
  });

  it("refuses a document with too many tokens", async () => {
    const fields = Array.from({ length: 3100 }, () => "id").join(" ");
    expectRefused(await suite.user.api.graphql(`{ me { ${fields} } }`), /token/i);
  });

  // graphql-js's budget for comparing a selection's fields answered "Validation aborted." alone (outside probe)
  it("says what to change of a document whose repeated fields exhaust validation's comparisons", async () => {
    const fields = Array.from({ length: 800 }, () => "id").join(" ");
    expectRefused(await suite.user.api.graphql(`{ me { ${fields} } }`), /^The document repeats fields in one selection more than validation can compare .*: ask for each field once$/);
  });

  it("lets ordinary queries through, and GraphiQL's introspection", async () => {
    const res = await suite.user.api.graphql(`{ threads { items { title memories { content thread { title } } } } memories { total } }`);
    expect(res.body.errors).toBeUndefined();
    const introspection = await suite.user.api.graphql(`{ __schema { queryType { name } types { name fields { name } } } }`);
    expect(introspection.body.data.__schema.queryType.name).toBe("Query");
  });

  it("hides unexpected errors behind INTERNAL without details", async () => {
    const original = suite.server.app.services.users.me.bind(suite.server.app.services.users);
    suite.server.app.services.users.me = () => Promise.reject(new Error("secret connection string postgres://admin:pw@db"));
    try {
      const res = await suite.user.api.graphql("{ me { id } }");
      expect(res.body.errors?.[0]).toMatchObject({ message: "Internal server error", extensions: { code: "INTERNAL" } });
      expect(res.text).not.toContain("secret");
    } finally {
      suite.server.app.services.users.me = original;
    }
  });
});

describe.runIf(databaseAgnosticRun())("GraphQL in production settings", () => {
  const production = serverWithUser({ GRAPHQL_INTROSPECTION: "false", GRAPHIQL: "false" });

  it("refuses introspection and hides field suggestions when GRAPHQL_INTROSPECTION=false", async () => {
    const res = await production.user.api.graphql(`{ __schema { types { name } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toMatch(/introspection/i);
    const typo = await production.user.api.graphql(`{ memorys { total } }`);
    expect(typo.status).toBe(400);
    expect(typo.body.errors?.[0]?.message).not.toMatch(/did you mean/i);
    expect((await production.user.api.graphql(`{ me { id } }`)).status).toBe(200);
  });

  it("does not serve GraphiQL, nor its files, when GRAPHIQL=false", async () => {
    const res = await production.server.client().get("/graphql", { headers: { accept: "text/html" } });
    expect(res.status).toBe(404);
    expect((await production.server.client().get("/graphiql/start-000000000000.js")).status).toBe(404);
  });
});

describe.runIf(databaseAgnosticRun())("GraphQL over HTTP: malformed parameters", () => {  const logged: string[] = [];

  const get = (params: Record<string, string>) => suite.user.api.get(`/graphql?${new URLSearchParams(params)}`);
  const post = (body: string, type = "application/json") =>
    suite.user.api.post("/graphql", undefined, { raw: body, headers: { "content-type": type } });
  const expect400 = (res: { status: number; body: any }, code: string, message: RegExp) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors?.[0]).toMatchObject({ extensions: { code } });
    expect(res.body.errors?.[0]?.message).toMatch(message);
    expect(res.body.errors?.[0]?.extensions).not.toHaveProperty("originalError");
  };

  it("answers 400 INVALID_JSON, naming the parameter, to variables or extensions that are not JSON on GET", async () => {
    expect400(await get({ query: "{me{id}}", variables: "{bad" }), "INVALID_JSON", /"variables" parameter is not valid JSON/);
    expect400(await get({ query: "{me{id}}", extensions: "{bad" }), "INVALID_JSON", /"extensions" parameter is not valid JSON/);
    expect400(await post(new URLSearchParams({ query: "{me{id}}", variables: "{bad" }).toString(), "application/x-www-form-urlencoded"), "INVALID_JSON", /"variables"/);
    expect((await get({ query: "{me{id}}", variables: "{}" })).status).toBe(200);
  });

  it("answers 400 to variables, extensions or operationName of the wrong type, on GET and POST", async () => {
    expect400(await get({ query: "{me{id}}", variables: "[1]" }), "VALIDATION_ERROR", /variables/);
    expect400(await post(JSON.stringify({ query: "{me{id}}", variables: "{bad" })), "VALIDATION_ERROR", /variables/);
    expect400(await post(JSON.stringify({ query: "{me{id}}", extensions: 5 })), "VALIDATION_ERROR", /extensions/);
    expect400(await post(JSON.stringify({ query: "{me{id}}", operationName: 5 })), "VALIDATION_ERROR", /"operationName" must be a string/);
  });

  // Yoga said "Could not determine what operation to execute.": neither why nor what to send
  it("says to send operationName when the document holds several operations, or none by that name", async () => {
    const two = "query Q { me { id } } query R { me { id } }";
    const message = /^The document holds more than one operation, or none by the operationName given: send operationName/;
    expect400(await post(JSON.stringify({ query: two })), "VALIDATION_ERROR", message);
    expect400(await post(JSON.stringify({ query: two, operationName: "S" })), "VALIDATION_ERROR", message);
    const named = await post(JSON.stringify({ query: two, operationName: "R" }));
    expect(named.status).toBe(200);
  });

  it("drops the JSON parser's own error from a body that is not JSON", async () => {
    expect400(await post("{bad"), "INVALID_JSON", /JSON/);
  });

  it("refuses a body that is not UTF-8 rather than storing U+FFFD", async () => {
    const bytes = (before: string, after: string) => new Uint8Array(Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]));
    const rest = await suite.user.api.post("/api/v1/memory", undefined, { raw: bytes('{"content":"a', '"}'), headers: { "content-type": "application/json" } });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({ code: "INVALID_JSON", message: expect.stringMatching(/UTF-8/) });
    const query = JSON.stringify({ query: "mutation { createMemory(input: { content: \"a" }).slice(0, -1);
    const gql = await suite.user.api.post("/graphql", undefined, { raw: bytes(query, '" }) { id } }"}'), headers: { "content-type": "application/json" } });
    expect400(gql, "INVALID_JSON", /UTF-8/);
    expect((await suite.user.api.get("/api/v1/memory")).body.total).toBe(0);
  });

  // every parameter of GraphQL over HTTP, on GET, form POST and JSON POST: any value, never a 5xx
  const text = fc.oneof(fc.string(), fc.constantFrom("", "{", "[", "null", "1", '"x"', "{}", "[]", '{"a":', "{me{id}}", "{ me { id } }", "query Q { me { id } }", "\u0000"));
  const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), text);
  const params = fc.record(
    { query: fc.oneof(text, fc.constantFrom("{ me { id } }", "query Q { me { id } } query R { me { email } }")), variables: text, extensions: text, operationName: text },
    { requiredKeys: [] },
  );
  const request = fc.oneof(
    params.map((p) => ({ method: "GET", path: `/graphql?${new URLSearchParams(p)}` })),
    params.map((p) => ({ method: "POST", path: "/graphql", body: new URLSearchParams(p).toString(), type: "application/x-www-form-urlencoded" })),
    fc
      .record({ query: json, variables: json, extensions: json, operationName: json }, { requiredKeys: [] })
      .chain((b) => fc.constantFrom<unknown>(b, [b], [b, b]))
      .map((b) => ({ method: "POST", path: "/graphql", body: JSON.stringify(b), type: "application/json" })),
    fc.record({ method: fc.constant("POST"), path: fc.constant("/graphql"), body: text, type: fc.constantFrom("application/graphql", "application/json", "text/plain") }),
  );

  it("answers 600 random GraphQL HTTP requests with no 5xx and a coded error", async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ method, path, body, type }: { method: string; path: string; body?: string; type?: string }) => {
        const res = await suite.user.api.request(method, path, body === undefined ? {} : { raw: body, headers: { "content-type": type! } });
        logged.push(`${method} ${path.slice(0, 120)} ${body?.slice(0, 120) ?? ""} -> ${res.status}`);
        expect(res.status, logged.at(-1)).toBeLessThan(500);
        if (res.status >= 400) expect(res.body?.errors?.[0]?.extensions?.code, res.text.slice(0, 200)).toMatch(/^[A-Z_]+$/);
      }),
      { numRuns: 600 },
    );
  });
});
