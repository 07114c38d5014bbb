import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

// memory_terms has no foreign key to memories (a trigger deletes the terms of deleted memories): these are
// the ways a memory goes, and the terms must go with it every time
describe.skipIf(databaseUnavailable())("the lexical index follows deleted memories", () => {
  let server: TestServer;
  let user: TestUser;

  const remember = async (who: TestUser, content: string, threadId?: string): Promise<string> => {
    const res = await who.api.post("/api/v1/memory", { content, ...(threadId ? { thread_id: threadId } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { id: string }).id;
  };
  const termCount = async (ids: string[]): Promise<number> => {
    const [row] = await server.app.services.db.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM memory_terms WHERE memory_id = ANY($1::uuid[])",
      [ids],
    );
    return row!.n;
  };

  beforeAll(async () => {
    server = await startTestServer();
    user = await server.newUser();
  });
  afterAll(() => server?.close());

  it("when one memory is deleted, and only its terms", async () => {
    const gone = await remember(user, "the violin lesson moved to Thursday");
    const kept = await remember(user, "the violin needs new strings");
    const keptTerms = await termCount([kept]);
    expect(await termCount([gone])).toBeGreaterThan(0);
    expect(keptTerms).toBeGreaterThan(0);
    expect((await user.api.delete(`/api/v1/memories/${gone}`)).status).toBe(200);
    expect(await termCount([gone])).toBe(0);
    expect(await termCount([kept])).toBe(keptTerms);
  });

  it("when a thread is deleted with its memories", async () => {
    const thread = (await user.api.post("/api/v1/threads", { title: "Trip" })).body as { id: string };
    const ids = [await remember(user, "book the ferry to Hydra", thread.id), await remember(user, "pack sunscreen", thread.id)];
    expect(await termCount(ids)).toBeGreaterThan(0);
    expect((await user.api.delete(`/api/v1/threads/${thread.id}?delete_memories=true`)).status).toBe(200);
    expect(await termCount(ids)).toBe(0);
  });

  it("when the user is deleted and their memories go by cascade", async () => {
    const leaving = await server.newUser();
    const ids = [await remember(leaving, "allergic to penicillin"), await remember(leaving, "prefers aisle seats")];
    expect(await termCount(ids)).toBeGreaterThan(0);
    await server.app.services.db.sql.query("DELETE FROM users WHERE id = $1::uuid", [leaving.userId]);
    expect(await termCount(ids)).toBe(0);
  });
});
