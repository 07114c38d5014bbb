import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

const unauthorizedBody = { error: { code: "UNAUTHORIZED", message: expect.any(String) } };

// one server and user for the whole file (a server start is most of what a suite of quick tests costs)
const suite = serverWithUser();

describe.skipIf(databaseUnavailable())("authentication", () => {
  it("accepts the key as Authorization: Bearer", async () => {
    const res = await suite.server.client().get("/api/v1/memory", { headers: { authorization: `Bearer ${suite.user.key}` } });
    expect(res.status).toBe(200);
  });

  it("accepts the key as x-service-api-key", async () => {
    const res = await suite.server.client().get("/api/v1/memory", { headers: { "x-service-api-key": suite.user.key } });
    expect(res.status).toBe(200);
  });

  it("treats the two headers as the same credential (same user, same data)", async () => {
    const created = await suite.server.client().post("/api/v1/memory", { content: "via x-service-api-key" }, {
      headers: { "x-service-api-key": suite.user.key },
    });
    const viaBearer = await suite.user.api.get(`/api/v1/memories/${created.body.id}`);
    expect(viaBearer.status).toBe(200);
  });

  it("refuses two different keys, one in each header (401), and takes the same key twice", async () => {
    const other = await suite.server.newUser();
    const both = { authorization: `Bearer ${suite.user.key}`, "x-service-api-key": other.key };
    const rest = await suite.server.client().get("/api/v1/memory", { headers: both });
    expect([rest.status, rest.body.error?.message]).toEqual([401, "Two different API keys (Authorization and x-service-api-key): send one"]);
    const graphql = await suite.server.client().graphql("{ me { id } }", undefined, { headers: both });
    expect([graphql.status, graphql.body.errors?.[0]?.extensions?.code]).toEqual([401, "UNAUTHORIZED"]);
    const same = await suite.server.client().get("/api/v1/memory", { headers: { ...both, "x-service-api-key": suite.user.key } });
    expect(same.status).toBe(200);
  });

  // Node.js keeps the first of two Authorization headers: the first key decided the user (outside probe)
  it("refuses two different Authorization headers (401), on REST and GraphQL", async () => {
    const other = await suite.server.newUser();
    const send = (path: string, method: string, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${suite.server.url}${path}`, {
          method,
          // raw headers (two of one name), Host among them: Node.js adds none to these
          headers: ["host", new URL(suite.server.url).host, "authorization", `Bearer ${suite.user.key}`, "authorization", `Bearer ${other.key}`, "content-type", "application/json"],
        });
        req.on("response", (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on("error", reject);
        req.end(body);
      });
    const rest = await send("/api/v1/memory", "GET");
    expect([rest.status, JSON.parse(rest.body).error?.message]).toEqual([401, "Two different Authorization headers: send one"]);
    const graphql = await send("/graphql", "POST", JSON.stringify({ query: "{ me { id } }" }));
    expect(graphql.status).toBe(401);
  });

  it.each([
    ["no key", {}],
    ["an unknown key", { authorization: "Bearer msk_thisKeyDoesNotExist000000000000000000000000" }],
    ["an empty Bearer", { authorization: "Bearer " }],
    ["another scheme", { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }],
    ["an empty x-service-api-key", { "x-service-api-key": "" }],
  ])("answers 401 UNAUTHORIZED on REST for %s", async (_name, headers) => {
    const res = await suite.server.client().get("/api/v1/memory", { headers });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthorizedBody);
  });

  // an Authorization header that was sent was answered "Missing API key" (outside probe)
  it("says an Authorization header it cannot read holds no key, rather than that none was sent", async () => {
    for (const authorization of ["Bearer <your API key>", "Basic YTpi", "Bearer "]) {
      const res = await suite.server.client().get("/api/v1/memory", { headers: { authorization } });
      expect([res.status, res.body.error.message], authorization).toEqual([401, 'The Authorization header holds no API key: send "Bearer <key>"']);
    }
    expect((await suite.server.client().get("/api/v1/memory")).body.error.message).toBe("Missing API key");
  });

  it("answers 401 with extensions.code on GraphQL for a missing or unknown key", async () => {
    for (const client of [suite.server.client(), suite.server.client("msk_unknown")]) {
      const res = await client.graphql("{ me { id } }");
      expect(res.status).toBe(401);
      expect(res.body.errors?.[0]?.extensions?.code).toBe("UNAUTHORIZED");
    }
  });

  it("protects every route, including ones that would otherwise fail validation", async () => {
    const anonymous = suite.server.client();
    const attempts = [
      anonymous.post("/api/v1/memory", { content: "x" }),
      anonymous.get("/api/v1/memories/00000000-0000-4000-8000-000000000000"),
      anonymous.patch("/api/v1/memories/00000000-0000-4000-8000-000000000000", {}),
      anonymous.put("/api/v1/memories/00000000-0000-4000-8000-000000000000", {}),
      anonymous.delete("/api/v1/memories/00000000-0000-4000-8000-000000000000"),
      anonymous.get("/api/v1/memory?limit=1000"),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(401);
  });

  // RFC 6750's challenge: MCP clients that find none after a 401 had no scheme to go on (outside probe)
  it("names the Bearer scheme in WWW-Authenticate on every 401: REST, GraphQL and MCP", async () => {
    const anonymous = suite.server.client();
    const answers = [
      await anonymous.get("/api/v1/memory"),
      await suite.server.client("msk_unknown").graphql("{ me { id } }"),
      await anonymous.post("/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { headers: { accept: "application/json, text/event-stream" } }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="memory-service"');
    }
  });

  it("stops accepting a revoked key on the very next request", async () => {
    const victim = await suite.server.newUser();
    expect((await victim.api.get("/api/v1/memory")).status).toBe(200);
    const revoked = await victim.api.graphql(`mutation ($id: ID!) { revokeApiKey(id: $id) { revoked revokedAt } }`, {
      id: victim.keyId,
    });
    expect(revoked.body.data?.revokeApiKey).toMatchObject({ revoked: true, revokedAt: expect.any(String) });
    const after = await victim.api.get("/api/v1/memory");
    expect(after.status).toBe(401);
    expect(after.body).toEqual(unauthorizedBody);
    expect((await victim.api.graphql("{ me { id } }")).status).toBe(401);
  });

  it("serves /healthz without a key", async () => {
    const res = await suite.server.client().get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("serves GraphiQL to a browser without a key", async () => {
    const res = await suite.server.client().get("/graphql", { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.text).toContain("GraphiQL");
  });
});

describe.skipIf(databaseUnavailable())("API keys over GraphQL", () => {
  it("creates a key whose full value is returned once and works at once", async () => {
    const res = await suite.user.api.graphql(`mutation { createApiKey(name: "laptop") { key apiKey { id name prefix revoked } } }`);
    expect(res.status).toBe(200);
    const created = res.body.data.createApiKey;
    expect(created.key).toMatch(/^msk_[\w-]{40,}$/);
    expect(created.key.startsWith(created.apiKey.prefix)).toBe(true);
    expect(created.apiKey).toMatchObject({ name: "laptop", revoked: false });
    expect((await suite.server.client(created.key).get("/api/v1/memory")).status).toBe(200);
  });

  it("lists the user's keys without the secret, marking the current one", async () => {
    const res = await suite.user.api.graphql(`{ apiKeys { id name prefix current createdAt lastUsedAt revokedAt } }`);
    const keys = res.body.data.apiKeys;
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(keys.filter((k: { current: boolean }) => k.current)).toEqual([expect.objectContaining({ id: suite.user.keyId })]);
    expect(JSON.stringify(keys)).not.toContain(suite.user.key);
  });

  it("stores only a hash of the key", async () => {
    const rows = await suite.server.app.db.sql.query<Record<string, unknown>>("SELECT * FROM api_keys WHERE id = $1", [suite.user.keyId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(suite.user.key);
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("rejects an empty key name", async () => {
    const res = await suite.user.api.graphql(`mutation { createApiKey(name: "  ") { key } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
  });

  it("cannot revoke another user's key", async () => {
    const other = await suite.server.newUser();
    const res = await suite.user.api.graphql(`mutation ($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: other.keyId });
    expect(res.status).toBe(404);
    expect(res.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await other.api.get("/api/v1/memory")).status).toBe(200);
  });
});

describe.skipIf(databaseUnavailable())("a user's own API keys, at most MAX_KEYS_PER_USER live", () => {
  const capped = serverWithUser({ MAX_KEYS_PER_USER: "3" });

  it("makes keys up to the cap, even when asked for many at once, and one more once one is revoked", async () => {
    // the test user holds one key already: five aliases in one request may make two more
    const aliases = Array.from({ length: 5 }, (_, i) => `k${i}: createApiKey(name: "bulk ${i}") { key }`).join(" ");
    // createApiKey is non-null: the first refused alias nulls the answer's data and ends the (serial) mutation, so
    // the keys list tells what was made
    const res = await capped.user.api.graphql(`mutation { ${aliases} }`);
    expect(res.body.errors).toHaveLength(1);
    for (const error of res.body.errors!) {
      expect(error.extensions).toMatchObject({ code: "VALIDATION_ERROR" });
      expect(error.message).toBe("You hold 3 API keys; a user may make their own up to 3 (MAX_KEYS_PER_USER): revoke one (revokeApiKey) before making another");
    }
    const keys = await capped.user.api.graphql<{ apiKeys: { id: string; name: string; revoked: boolean }[] }>(`{ apiKeys { id name revoked } }`);
    const live = keys.body.data!.apiKeys.filter((key) => !key.revoked);
    expect(live).toHaveLength(3);
    const bulk = live.filter((key) => key.name.startsWith("bulk"));
    expect(bulk).toHaveLength(2);

    const revoked = await capped.user.api.graphql(`mutation { revokeApiKey(id: "${bulk[0]!.id}") { id } }`);
    expect(revoked.body.errors).toBeUndefined();
    const again = await capped.user.api.graphql<{ createApiKey: { key: string } }>(`mutation { createApiKey(name: "after") { key } }`);
    expect(again.body.errors).toBeUndefined();
    expect((await capped.server.client(again.body.data!.createApiKey.key).get("/api/v1/memory")).status).toBe(200);

    // requests side by side: the user's row is locked while their keys are counted, so they cannot pass the cap
    await capped.user.api.graphql(`mutation { revokeApiKey(id: "${bulk[1]!.id}") { id } }`);
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => capped.user.api.graphql(`mutation { createApiKey(name: "race ${i}") { key } }`)),
    );
    expect(racing.filter((answer) => answer.body.errors === undefined)).toHaveLength(1);
    const after = await capped.user.api.graphql<{ apiKeys: { revoked: boolean }[] }>(`{ apiKeys { revoked } }`);
    expect(after.body.data!.apiKeys.filter((key) => !key.revoked)).toHaveLength(3);
  });
});
