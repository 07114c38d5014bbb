import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

const expectRefused = (res: { status: number; body: any }, message: RegExp) => {
  expect(res.status).toBe(400);
  expect(res.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
  expect(res.body.errors?.[0]?.message).toMatch(message);
  expect(res.body.data).toBeUndefined();
};

describe.skipIf(databaseUnavailable())("GraphQL limits", () => {
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startTestServer();
    user = await server.newUser();
  });
  afterAll(() => server?.close());

  it("refuses a query nested too deeply", async () => {
    let selection = "id";
    for (let i = 0; i < 6; i++) selection = `thread { memories { ${selection} } }`; // depth 14, cheap otherwise
    expectRefused(await user.api.graphql(`{ memories { items { ${selection} } } }`), /depth/i);
  });

  it("refuses too many aliases", async () => {
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: me { id }`).join(" ");
    expectRefused(await user.api.graphql(`{ ${aliases} }`), /aliases/i);
  });

  it("refuses a query that would cost too much", async () => {
    let deep = "id content data type tags metadata createdAt updatedAt";
    for (let i = 0; i < 4; i++) deep = `thread { memories { ${deep} } }`; // depth 10: within the depth limit
    const wide = Array.from({ length: 14 }, (_, i) => `q${i}: memories { items { ${deep} } }`).join(" ");
    expectRefused(await user.api.graphql(`{ ${wide} }`), /cost/i);
  });

  it("refuses a document with too many tokens", async () => {
    const fields = Array.from({ length: 3100 }, () => "id").join(" ");
    expectRefused(await user.api.graphql(`{ me { ${fields} } }`), /token/i);
  });

  it("lets ordinary queries through, and GraphiQL's introspection", async () => {
    const res = await user.api.graphql(`{ threads { items { title memories { content thread { title } } } } memories { total } }`);
    expect(res.body.errors).toBeUndefined();
    const introspection = await user.api.graphql(`{ __schema { queryType { name } types { name fields { name } } } }`);
    expect(introspection.body.data.__schema.queryType.name).toBe("Query");
  });

  it("hides unexpected errors behind INTERNAL without details", async () => {
    const original = server.app.services.users.me.bind(server.app.services.users);
    server.app.services.users.me = () => Promise.reject(new Error("secret connection string postgres://admin:pw@db"));
    try {
      const res = await user.api.graphql("{ me { id } }");
      expect(res.body.errors?.[0]).toMatchObject({ message: "Internal server error", extensions: { code: "INTERNAL" } });
      expect(res.text).not.toContain("secret");
    } finally {
      server.app.services.users.me = original;
    }
  });
});

describe.skipIf(databaseUnavailable())("GraphQL in production settings", () => {
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ GRAPHQL_INTROSPECTION: "false", GRAPHIQL: "false" });
    user = await server.newUser();
  });
  afterAll(() => server?.close());

  it("refuses introspection and hides field suggestions when GRAPHQL_INTROSPECTION=false", async () => {
    const res = await user.api.graphql(`{ __schema { types { name } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toMatch(/introspection/i);
    const typo = await user.api.graphql(`{ memorys { total } }`);
    expect(typo.status).toBe(400);
    expect(typo.body.errors?.[0]?.message).not.toMatch(/did you mean/i);
    expect((await user.api.graphql(`{ me { id } }`)).status).toBe(200);
  });

  it("does not serve GraphiQL when GRAPHIQL=false", async () => {
    const res = await server.client().get("/graphql", { headers: { accept: "text/html" } });
    expect(res.status).toBe(404);
  });
});
