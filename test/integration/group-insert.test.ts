import { describe, expect, it } from "vitest";
import { watchGroups } from "../support/grouped-statements.ts";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

const WRITERS = 40;

describe.skipIf(databaseUnavailable())("concurrent single creates, grouped into one statement", () => {
  const suite = serverWithUser();

  /** The statements that insert memories, and how many rows each carried (its first parameter's rows). */
  const watchInserts = (options: Parameters<typeof watchGroups>[2] = {}) => {
    const watch = watchGroups(
      suite.server.app.db.sql,
      (text, params) => (text.includes("INSERT INTO memories") ? (JSON.parse(params![0] as string) as unknown[]).length : undefined),
      options,
    );
    return { rows: watch.sizes, restore: watch.restore };
  };

  it("stores the creates that arrive while a statement runs together, each writer's own, over REST and GraphQL", async () => {
    const inserts = watchInserts({ delayMs: 50 });
    try {
      const answers = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) =>
          i % 2
            ? suite.user.api.post("/api/v1/memory", { content: `writer ${i}`, tags: [`w${i}`] }).then((res) => ({ status: res.status, memory: res.body }))
            : suite.user.api
                .graphql<{ createMemory: { id: string; content: string; tags: string[] } }>(
                  `mutation ($input: CreateMemoryInput!) { createMemory(input: $input) { id content tags } }`,
                  { input: { content: `writer ${i}`, tags: [`w${i}`] } },
                )
                .then((res) => ({ status: res.status, memory: res.body.data!.createMemory })),
        ),
      );
      answers.forEach(({ status, memory }, i) => {
        expect(status).toBe(i % 2 ? 201 : 200);
        expect(memory).toMatchObject({ content: `writer ${i}`, tags: [`w${i}`] });
      });
      expect(new Set(answers.map((a) => a.memory.id)).size).toBe(WRITERS);
      expect(inserts.rows.reduce((a, b) => a + b, 0)).toBe(WRITERS);
      // one statement at a time on the embedded database: the creates pile up behind it; PostgreSQL runs a few
      expect(inserts.rows.length).toBeLessThan(suite.server.app.db.singleWriter ? WRITERS / 2 : WRITERS);
      expect(Math.max(...inserts.rows)).toBeGreaterThan(1);
      for (const { memory } of answers) expect((await suite.user.api.get(`/api/v1/memories/${memory.id}`)).body.content).toBe(memory.content);
    } finally {
      inserts.restore();
    }
  });

  it("fails only the creates whose thread is not the user's", async () => {
    const mine = (await suite.user.api.post("/api/v1/threads", { title: "mine" })).body;
    const other = await suite.server.newUser();
    const theirs = (await other.api.post("/api/v1/threads", { title: "theirs" })).body;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => suite.user.api.post("/api/v1/memory", { content: `threaded ${i}`, thread_id: i % 4 ? mine.id : theirs.id })),
    );
    answers.forEach((res, i) => {
      if (i % 4) expect(res.body).toMatchObject({ content: `threaded ${i}`, thread_id: mine.id });
      else expect(res.body.error).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringMatching(/thread_id/) });
    });
    expect((await other.api.get(`/api/v1/threads/${theirs.id}?include_memories=true`)).body.thread.memories).toEqual([]);
  });

  it("stores the rows one by one when a grouped statement fails, so every writer still gets its memory", async () => {
    const inserts = watchInserts({ delayMs: 20, fail: (rows) => rows > 1 });
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => suite.user.api.post("/api/v1/memory", { content: `retried ${i}` })));
      answers.forEach((res, i) => expect(res.body).toMatchObject({ content: `retried ${i}` }));
      expect(inserts.rows.some((n) => n > 1)).toBe(true); // a group was tried, and failed
    } finally {
      inserts.restore();
    }
  });
});
