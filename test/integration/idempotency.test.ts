import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

describe.skipIf(databaseUnavailable())("Idempotency-Key", () => {
  let server: TestServer;
  let user: TestUser;

  const total = async (who = user) => (await who.api.get("/api/v1/memory?limit=1")).body.total as number;

  beforeAll(async () => {
    server = await startTestServer();
    user = await server.newUser();
  });
  afterAll(() => server?.close());

  it("answers a repeated create with the first response, and stores once", async () => {
    const before = await total();
    const headers = { "idempotency-key": "create-1" };
    const first = await user.api.post("/api/v1/memory", { content: "only once please" }, { headers });
    const second = await user.api.post("/api/v1/memory", { content: "only once please" }, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await total()).toBe(before + 1);
  });

  it("refuses the same key with another body: 409 IDEMPOTENCY_CONFLICT", async () => {
    const headers = { "idempotency-key": "create-2" };
    await user.api.post("/api/v1/memory", { content: "first body" }, { headers });
    const res = await user.api.post("/api/v1/memory", { content: "second body" }, { headers });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("IDEMPOTENCY_CONFLICT");
  });

  it("replays a batch, and replays a validation error as it was", async () => {
    const headers = { "idempotency-key": "batch-1" };
    const items = [{ content: "batch a" }, { content: "" }];
    const first = await user.api.post("/api/v1/memory/batch", items, { headers });
    const again = await user.api.post("/api/v1/memory/batch", items, { headers });
    expect(again.body).toEqual(first.body);
    expect(first.body.summary.successful).toBe(1);

    const bad = { "idempotency-key": "bad-1" };
    const refused = await user.api.post("/api/v1/memory", { content: "" }, { headers: bad });
    const refusedAgain = await user.api.post("/api/v1/memory", { content: "" }, { headers: bad });
    expect(refused.status).toBe(400);
    expect(refusedAgain.status).toBe(400);
    expect(refusedAgain.headers.get("idempotent-replayed")).toBe("true");
  });

  it("keeps keys per user: another user's same key is a new request", async () => {
    const other = await server.newUser();
    const headers = { "idempotency-key": "create-1" };
    const res = await other.api.post("/api/v1/memory", { content: "only once please" }, { headers });
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(await total(other)).toBe(1);
  });

  it("applies to GraphQL mutations too", async () => {
    const before = await total();
    const query = `mutation { createMemory(input: { content: "graphql once" }) { id } }`;
    const headers = { "idempotency-key": "gql-1" };
    const first = await user.api.graphql(query, undefined, { headers });
    const second = await user.api.graphql(query, undefined, { headers });
    expect(second.body).toEqual(first.body);
    expect(await total()).toBe(before + 1);
  });

  it("refuses a malformed key", async () => {
    const res = await user.api.post("/api/v1/memory", { content: "x" }, { headers: { "idempotency-key": "x".repeat(300) } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^Idempotency-Key must be/);
  });

  it("ignores the header on requests other than POST", async () => {
    const created = (await user.api.post("/api/v1/memory", { content: "v1" })).body;
    const headers = { "idempotency-key": "patch-1" };
    await user.api.patch(`/api/v1/memories/${created.id}`, { content: "v2" }, { headers });
    const res = await user.api.patch(`/api/v1/memories/${created.id}`, { content: "v3" }, { headers });
    expect(res.body.content).toBe("v3");
  });
});
