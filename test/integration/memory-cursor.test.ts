import { describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

interface Connection {
  memoriesConnection: {
    edges: { cursor: string; node: { content: string } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null; startCursor: string | null };
  };
}

const PAGE = `query ($first: Int, $after: String, $last: Int, $before: String, $filter: MemoryFilter) {
  memoriesConnection(first: $first, after: $after, last: $last, before: $before, filter: $filter) {
    edges { cursor node { content } }
    pageInfo { hasNextPage hasPreviousPage endCursor startCursor }
  }
}`;

describe.skipIf(databaseUnavailable())("cursor pagination of memories (GraphQL connection)", () => {
  const suite = serverWithUser();
  const create = async (content: string, metadata = {}) =>
    expect((await suite.user.api.request("POST", "/api/v1/memory", { json: { content, metadata } })).status).toBe(201);
  const page = async (variables: Record<string, unknown>) => {
    const res = await suite.user.api.graphql<Connection>(PAGE, variables);
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data!.memoriesConnection;
    return { contents: connection.edges.map((edge) => edge.node.content), info: connection.pageInfo };
  };

  it("walks the whole list forward, each memory once, while newer memories arrive", async () => {
    for (let i = 0; i < 7; i++) await create(`m${i}`, { n: i });
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const { contents, info } = await page({ first: 3, after });
      seen.push(...contents);
      // inserts between pages land before the first page, not in the pages still to come
      await create(`late after ${seen.length}`);
      if (!info.hasNextPage) break;
      after = info.endCursor!;
    }
    expect(seen).toEqual(["m6", "m5", "m4", "m3", "m2", "m1", "m0"]);
  });

  it("walks back with last/before, and filters as lists do", async () => {
    const { contents: firstTwo, info } = await page({ first: 2, filter: { metadata: [{ path: "n", gte: 2 }] } });
    expect(firstTwo).toEqual(["m6", "m5"]);
    expect(info.hasNextPage).toBe(true);
    const rest = await page({ first: 10, after: info.endCursor, filter: { metadata: [{ path: "n", gte: 2 }] } });
    expect(rest.contents).toEqual(["m4", "m3", "m2"]);
    expect(rest.info.hasNextPage).toBe(false);
    const back = await page({ last: 2, before: rest.info.endCursor, filter: { metadata: [{ path: "n", gte: 2 }] } });
    expect(back.contents).toEqual(["m4", "m3"]);
    expect(back.info.hasPreviousPage).toBe(true);
  });

  it.each([
    [{ first: 2, after: "bm90IGEgY3Vyc29y" }, "after"],
    [{ first: 101 }, "100"],
  ])("refuses %j", async (variables, words) => {
    const res = await suite.user.api.graphql(PAGE, variables);
    expect(res.body.errors?.[0]?.message).toContain(words);
  });

  it("never shows another user's memories", async () => {
    const stranger = await suite.server.newUser();
    const res = await stranger.api.graphql<Connection>(PAGE, { first: 100 });
    expect(res.body.data!.memoriesConnection.edges).toEqual([]);
  });

  it("gives an empty page null cursors, or the cursor it was sent (one a request takes back)", async () => {
    const stranger = await suite.server.newUser();
    for (const variables of [{ first: 0 }, { last: 0 }]) {
      const { contents, info } = await page(variables);
      expect([contents, info.startCursor, info.endCursor]).toEqual([[], null, null]);
    }
    const nobody = (await stranger.api.graphql<Connection>(PAGE, { first: 10 })).body.data!.memoriesConnection.pageInfo;
    expect([nobody.startCursor, nobody.endCursor]).toEqual([null, null]);
    const { info: first } = await page({ first: 1 });
    const { contents, info } = await page({ first: 0, after: first.endCursor });
    expect([contents, info.endCursor]).toEqual([[], first.endCursor]);
    expect((await page({ first: 1, after: info.endCursor })).contents).toHaveLength(1);
  });
});

describe.skipIf(databaseUnavailable())("cursor pagination of memories (REST)", () => {
  const suite = serverWithUser();
  const list = (query: string) => suite.user.api.request("GET", `/api/v1/memory?${query}`);

  it("walks the list by next_cursor, each memory once, while newer memories arrive; offset pages give a cursor too", async () => {
    const api = suite.user.api;
    for (let i = 0; i < 5; i++) expect((await api.request("POST", "/api/v1/memory", { json: { content: `r${i}` } })).status).toBe(201);
    const first = await list("limit=2");
    expect(first.body).toMatchObject({ total: 5, limit: 2, offset: 0, has_more: true });
    const seen: string[] = first.body.memories.map((m: { content: string }) => m.content);
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      await api.request("POST", "/api/v1/memory", { json: { content: `late ${seen.length}` } });
      const page = await list(`limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(page.status).toBe(200);
      expect(page.body.offset).toBeNull();
      seen.push(...page.body.memories.map((m: { content: string }) => m.content));
      cursor = page.body.next_cursor;
      if (!cursor) expect(page.body.has_more).toBe(false);
    }
    expect(seen).toEqual(["r4", "r3", "r2", "r1", "r0"]);
  });

  it.each([
    ["offset=2&cursor=abc", "cursor cannot be combined with offset"],
    ["cursor=bm90IGEgY3Vyc29y", "cursor is not a cursor of this list"],
    ["cursor=&limit=101", "cursor is not a cursor"],
  ])("answers 400 to %s", async (query, message) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(message);
  });
});
