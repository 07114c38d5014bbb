import { describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser, type TestUser } from "../support/server.ts";

// The whole list's total is read from the count the triggers keep (migration memory_counts); these writes go
// every way memories come and go, and after each the total must be what counting the rows says.
describe.skipIf(databaseUnavailable())("the total of a user's whole list", () => {
  const suite = serverWithUser();

  const listed = async (user: TestUser) => {
    const rest = await user.api.get("/api/v1/memory?limit=1");
    const graph = await user.api.graphql<{ memories: { total: number } }>("{ memories(limit: 1) { total } }");
    expect(rest.status).toBe(200);
    expect(graph.body.data?.memories.total).toBe(rest.body.total);
    return rest.body.total as number;
  };
  const counted = async (user: TestUser) => {
    const [row] = await suite.server.app.db.sql.query<{ n: number | bigint | string }>(
      "SELECT count(*) AS n FROM memories WHERE user_id = $1::uuid AND (expires_at IS NULL OR expires_at > now())",
      [user.userId],
    );
    return Number(row!.n);
  };
  const expectTotal = async (user: TestUser, expected: number) => {
    expect(await counted(user)).toBe(expected);
    expect(await listed(user)).toBe(expected);
  };

  it("follows concurrent creates, a large batch, deletes and a thread deleted with its memories, one user's alone", async () => {
    const user = await suite.server.newUser();
    const other = await suite.server.newUser();
    await expectTotal(user, 0);

    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => user.api.post("/api/v1/memory", { content: `concurrent memory ${i}` })),
    );
    expect(created.every((res) => res.status === 201)).toBe(true);
    await other.api.post("/api/v1/memory", { content: "the other user's" });
    await expectTotal(user, 40);
    await expectTotal(other, 1);

    // more than one statement's rows: the batch is stored in one transaction of several statements
    const items = Array.from({ length: 100 }, (_, i) => ({ content: `batch memory ${i}` }));
    expect((await user.api.post("/api/v1/memory/batch", { memories: items })).body.summary.successful).toBe(100);
    await expectTotal(user, 140);

    for (const res of created.slice(0, 5)) expect((await user.api.delete(`/api/v1/memories/${res.body.id}`)).status).toBe(200);
    await expectTotal(user, 135);

    const thread = (await user.api.post("/api/v1/threads", { title: "to delete" })).body.id as string;
    for (let i = 0; i < 7; i++) await user.api.post("/api/v1/memory", { content: `thread memory ${i}`, thread_id: thread });
    await expectTotal(user, 142);
    expect((await user.api.delete(`/api/v1/threads/${thread}?delete_memories=true`)).status).toBe(200);
    await expectTotal(user, 135);
    await expectTotal(other, 1);
  });

  it("leaves out memories past their expiry before the sweeper deletes them, and after", async () => {
    const user = await suite.server.newUser();
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    for (let i = 0; i < 3; i++) await user.api.post("/api/v1/memory", { content: `short-lived ${i}`, expires_at: expiresAt });
    await user.api.post("/api/v1/memory", { content: "kept" });
    await expectTotal(user, 4);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 100));
    await expectTotal(user, 1);
    expect(await suite.server.app.services.expiry.sweep()).toBeGreaterThanOrEqual(3);
    await expectTotal(user, 1);
  });

  it("agrees with the filtered lists' counting while creates and deletes run at once", async () => {
    const user = await suite.server.newUser();
    const first = await Promise.all(Array.from({ length: 30 }, (_, i) => user.api.post("/api/v1/memory", { content: `first ${i}` })));
    const writes = await Promise.all([
      ...first.map((res) => user.api.delete(`/api/v1/memories/${res.body.id}`)),
      ...Array.from({ length: 30 }, (_, i) => user.api.post("/api/v1/memory", { content: `second ${i}`, type: "note" })),
    ]);
    expect(writes.map((res) => res.status)).toEqual([...Array(30).fill(200), ...Array(30).fill(201)]);
    await expectTotal(user, 30);
    // a filter that matches every memory is counted row by row: the two totals agree
    expect((await user.api.get("/api/v1/memory?type=note")).body.total).toBe(30);
  });

  it("keeps each page self-consistent while deletes run: total, has_more and the items read at different moments agree", async () => {
    const user = await suite.server.newUser();
    const made = await user.api.post(
      "/api/v1/memory/batch",
      Array.from({ length: 60 }, (_, i) => ({ content: `doomed ${i}`, tags: ["tot"] })),
    );
    const ids = (made.body.results as { id: string }[]).map((result) => result.id);
    const pages: { total: number; items: number; hasMore: boolean; offset: number }[] = [];
    let deleting = true;
    const read = async () => {
      while (deleting) {
        const [rest, graph, matching] = await Promise.all([
          user.api.get("/api/v1/memory?tags=tot&limit=100"),
          user.api.graphql<{ memories: { total: number; hasMore: boolean; items: unknown[] } }>(
            '{ memories(filter: { tags: ["tot"] }, limit: 100) { total hasMore items { id } } }',
          ),
          // a metadata filter takes the other way (the page's ids by SQL, then the rows)
          user.api.get(`/api/v1/memory?limit=20&offset=10&filter=${encodeURIComponent(JSON.stringify({ metadata: [{ path: "missing", exists: false }] }))}`),
        ]);
        pages.push({ total: rest.body.total, items: rest.body.memories.length, hasMore: rest.body.has_more, offset: 0 });
        const { total, hasMore, items } = graph.body.data!.memories;
        pages.push({ total, items: items.length, hasMore, offset: 0 });
        expect(matching.status, JSON.stringify(matching.body)).toBe(200);
        pages.push({ total: matching.body.total, items: matching.body.memories.length, hasMore: matching.body.has_more, offset: 10 });
      }
    };
    const readers = [read(), read()];
    for (const id of ids) await user.api.delete(`/api/v1/memories/${id}`);
    deleting = false;
    await Promise.all(readers);
    expect(pages.length).toBeGreaterThan(10);
    const inconsistent = pages.filter(
      ({ total, items, hasMore, offset }) =>
        (items > 0 && total < offset + items) || (!hasMore && items > 0 && total !== offset + items) || (hasMore && items === 0),
    );
    expect(inconsistent).toEqual([]);
  });
});
