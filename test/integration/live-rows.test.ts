import { describe, expect, it } from "vitest";
import { watchGroups } from "../support/grouped-statements.ts";
import { databaseUnavailable, databaseUnderTest, serverWithUser, type TestUser } from "../support/server.ts";

const FRUITS = ["apple", "pear", "plum", "cherry"];

describe.skipIf(databaseUnavailable())("the live rows of concurrent searches, read in one statement", () => {
  const suite = serverWithUser();

  /** Memories of fruits over two types, tags and a thread: each search below has hits to read and a filter to pass. */
  async function fill(who: TestUser): Promise<string> {
    const thread = (await who.api.post("/api/v1/threads", { title: "orchard" })).body.id as string;
    const items = Array.from({ length: 24 }, (_, i) => ({
      content: `${who.handle} keeps ${FRUITS[i % 4]} note ${i} about the orchard`,
      type: i % 3 ? "fact" : "preference",
      tags: i % 2 ? ["odd"] : ["even"],
      ...(i % 4 === 1 ? { thread_id: thread } : {}),
    }));
    const stored = await who.api.post("/api/v1/memory/batch", { memories: items });
    expect(stored.body.summary).toMatchObject({ successful: items.length });
    return thread;
  }

  /** Requests whose live-row reads differ in user, filter and columns: each must come back as it does alone. */
  function requests(who: TestUser, thread: string): (() => Promise<unknown>)[] {
    const ids = (body: { results: { id: string }[] }) => body.results.map((hit) => hit.id);
    return [
      () => who.api.post("/api/v1/memory/recall", { query: "apple orchard" }).then((res) => ids(res.body)),
      () => who.api.post("/api/v1/memory/recall", { query: "plum orchard", thread_id: thread }).then((res) => ids(res.body)),
      () => who.api.get("/api/v1/memory/search?query=pear&type=fact").then((res) => ids(res.body)),
      () => who.api.get("/api/v1/memory/search?query=cherry&tags=odd").then((res) => ids(res.body)),
      () =>
        who.api
          .graphql<{ recall: { results: { memory: { id: string; thread: { id: string } | null } }[] } }>(
            `query { recall(query: "orchard note", limit: 5) { results { memory { id thread { id } } } } }`,
          )
          .then((res) => res.body.data!.recall.results.map((hit) => [hit.memory.id, hit.memory.thread?.id ?? null])),
    ];
  }

  /** The live-row statements, and how many reads each carried (a subquery of its own each). */
  const watchReads = (options: Parameters<typeof watchGroups>[2] = {}) => {
    const watch = watchGroups(
      suite.server.app.db.sql,
      (text) => (text.includes("hit0 AS MATERIALIZED") ? text.match(/hit\d+ AS MATERIALIZED/g)!.length : undefined),
      options,
    );
    return { reads: watch.sizes, restore: watch.restore };
  };

  it("answers each search with its own rows, as it answers alone, while their reads are grouped", async () => {
    const other = await suite.server.newUser();
    const calls = [...requests(suite.user, await fill(suite.user)), ...requests(other, await fill(other))];
    const alone: unknown[] = [];
    for (const call of calls) alone.push(await call());
    expect(alone.every((answer) => Array.isArray(answer) && answer.length > 0)).toBe(true);

    const watch = watchReads({ delayMs: 30 });
    try {
      const together = await Promise.all([...calls, ...calls].map((call) => call()));
      expect(together).toEqual([...alone, ...alone]);
      expect(watch.reads.reduce((a, b) => a + b, 0)).toBe(calls.length * 2);
      // one statement at a time on the embedded database, the reads that wait for it go together; PostgreSQL's go alone
      if (databaseUnderTest() === "pglite") expect(Math.max(...watch.reads)).toBeGreaterThan(1);
      else expect(watch.reads.every((n) => n === 1)).toBe(true);
    } finally {
      watch.restore();
    }
  });

  it.runIf(databaseUnderTest() === "pglite")("reads one by one when a grouped statement fails, so every search still answers", async () => {
    const calls = requests(suite.user, await fill(suite.user));
    const alone: unknown[] = [];
    for (const call of calls) alone.push(await call());
    const watch = watchReads({ delayMs: 20, fail: (reads) => reads > 1 });
    try {
      expect(await Promise.all(calls.map((call) => call()))).toEqual(alone);
      expect(watch.reads.some((n) => n > 1)).toBe(true); // a group was tried, and failed
    } finally {
      watch.restore();
    }
  });
});
