import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

const MISSING = "00000000-0000-4000-8000-000000000000";

/** Another user's id must behave exactly like a missing id: same status, same body, and no change. */
describe.skipIf(databaseUnavailable())("isolation between users", () => {
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let aliceMemory: { id: string; content: string };

  beforeAll(async () => {
    server = await startTestServer();
    alice = await server.newUser();
    bob = await server.newUser();
    aliceMemory = (await alice.api.post("/api/v1/memory", { content: "alice's secret", tags: ["private"] })).body;
  });
  afterAll(() => server?.close());

  const restAttempts = (id: string) => [
    () => bob.api.get(`/api/v1/memories/${id}`),
    () => bob.api.patch(`/api/v1/memories/${id}`, { content: "hijacked" }),
    () => bob.api.put(`/api/v1/memories/${id}`, { content: "hijacked" }),
    () => bob.api.delete(`/api/v1/memories/${id}`),
  ];

  it("REST: every id route answers another user's id exactly as a missing one", async () => {
    const theirs = restAttempts(aliceMemory.id);
    const missing = restAttempts(MISSING);
    for (let i = 0; i < theirs.length; i++) {
      const a = await theirs[i]!();
      const b = await missing[i]!();
      expect(a.status).toBe(404);
      expect(a.body).toEqual(b.body);
    }
    const still = await alice.api.get(`/api/v1/memories/${aliceMemory.id}`);
    expect(still.body.content).toBe("alice's secret");
  });

  it("GraphQL: memory(id) is null and mutations are NOT_FOUND for another user's id", async () => {
    const read = await bob.api.graphql(`query ($id: ID!) { memory(id: $id) { id content } }`, { id: aliceMemory.id });
    expect(read.body).toEqual({ data: { memory: null } });
    for (const mutation of [
      `mutation ($id: ID!) { updateMemory(id: $id, input: { content: "x" }) { id } }`,
      `mutation ($id: ID!) { replaceMemory(id: $id, input: { content: "x" }) { id } }`,
      `mutation ($id: ID!) { deleteMemory(id: $id) }`,
    ]) {
      const res = await bob.api.graphql(mutation, { id: aliceMemory.id });
      expect(res.status).toBe(404);
      expect(res.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      expect(JSON.stringify(res.body)).not.toContain("alice's secret");
    }
    expect((await alice.api.get(`/api/v1/memories/${aliceMemory.id}`)).body.content).toBe("alice's secret");
  });

  it("lists never show another user's memories, whatever the filters", async () => {
    for (const query of ["", "?tags=private", "?is_archived=false", "?limit=100"]) {
      const res = await bob.api.get(`/api/v1/memory${query}`);
      expect(res.body.memories.some((m: { id: string }) => m.id === aliceMemory.id)).toBe(false);
    }
    const gql = await bob.api.graphql(`{ memories(limit: 100) { total items { id } } }`);
    expect(gql.body.data.memories.items.some((m: { id: string }) => m.id === aliceMemory.id)).toBe(false);
  });

  it("API keys: another user's keys are not listed and cannot be revoked", async () => {
    const keys = await bob.api.graphql(`{ apiKeys { id } }`);
    expect(keys.body.data.apiKeys.map((k: { id: string }) => k.id)).toEqual([bob.keyId]);
  });
});
