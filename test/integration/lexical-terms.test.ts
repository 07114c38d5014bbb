import { describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser, type TestUser } from "../support/server.ts";

// memory_terms has no foreign key to memories (a trigger deletes the terms of deleted memories): these are
// the ways a memory goes, and the terms must go with it every time
describe.skipIf(databaseUnavailable())("the lexical index follows deleted memories", () => {
  const suite = serverWithUser();

  const remember = async (who: TestUser, content: string, threadId?: string): Promise<string> => {
    const res = await who.api.post("/api/v1/memory", { content, ...(threadId ? { thread_id: threadId } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { id: string }).id;
  };
  const termCount = async (ids: string[]): Promise<number> => {
    const [row] = await suite.server.app.services.db.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM memory_terms WHERE memory_id = ANY($1::uuid[])",
      [ids],
    );
    return row!.n;
  };

  it("when one memory is deleted, and only its terms", async () => {
    const gone = await remember(suite.user, "the violin lesson moved to Thursday");
    const kept = await remember(suite.user, "the violin needs new strings");
    const keptTerms = await termCount([kept]);
    expect(await termCount([gone])).toBeGreaterThan(0);
    expect(keptTerms).toBeGreaterThan(0);
    expect((await suite.user.api.delete(`/api/v1/memories/${gone}`)).status).toBe(200);
    expect(await termCount([gone])).toBe(0);
    expect(await termCount([kept])).toBe(keptTerms);
  });

  it("when a thread is deleted with its memories", async () => {
    const thread = (await suite.user.api.post("/api/v1/threads", { title: "Trip" })).body as { id: string };
    const ids = [await remember(suite.user, "book the ferry to Hydra", thread.id), await remember(suite.user, "pack sunscreen", thread.id)];
    expect(await termCount(ids)).toBeGreaterThan(0);
    expect((await suite.user.api.delete(`/api/v1/threads/${thread.id}?delete_memories=true`)).status).toBe(200);
    expect(await termCount(ids)).toBe(0);
  });

  it("when the user is deleted and their memories go by cascade", async () => {
    const leaving = await suite.server.newUser();
    const ids = [await remember(leaving, "allergic to penicillin"), await remember(leaving, "prefers aisle seats")];
    expect(await termCount(ids)).toBeGreaterThan(0);
    await suite.server.app.services.db.sql.query("DELETE FROM users WHERE id = $1::uuid", [leaving.userId]);
    expect(await termCount(ids)).toBe(0);
  });
});
