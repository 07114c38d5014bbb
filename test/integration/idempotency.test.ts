import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { IDEMPOTENCY_LEASE_SECONDS, requestHash } from "../../src/domain/idempotency.ts";
import { databaseUnavailable, databaseUnderTest, serverWithUser } from "../support/server.ts";

describe.skipIf(databaseUnavailable())("Idempotency-Key", () => {
  const suite = serverWithUser();

  const total = async (who = suite.user) => (await who.api.get("/api/v1/memory?limit=1")).body.total as number;

  /** POSTs `body` twice with one key: the second answer is the first, replayed, and `stored` counts one more. */
  const expectStoredOnce = async (path: string, body: object, key: string, stored: () => Promise<number>) => {
    const before = await stored();
    const headers = { "idempotency-key": key };
    const first = await suite.user.api.post(path, body, { headers });
    const second = await suite.user.api.post(path, body, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await stored()).toBe(before + 1);
  };

  it("answers a repeated create with the first response, and stores once", async () => {
    await expectStoredOnce("/api/v1/memory", { content: "only once please" }, "create-1", total);
  });

  it("refuses the same key with another body: 409 IDEMPOTENCY_CONFLICT", async () => {
    const headers = { "idempotency-key": "create-2" };
    await suite.user.api.post("/api/v1/memory", { content: "first body" }, { headers });
    const res = await suite.user.api.post("/api/v1/memory", { content: "second body" }, { headers });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("IDEMPOTENCY_CONFLICT");
    expect(res.headers.get("retry-after")).toBeNull();
  });

  // the database gone as the request failed: the key could not be forgotten, and retries were answered 409 until
  // its lease ran out (five minutes on PostgreSQL; on the embedded database, until a restart) (helper-26)
  it("forgets the key of a request that failed while the database could not be told, at the key's next use", async () => {
    const { sql } = suite.server.app.db;
    const query = sql.query.bind(sql);
    const lost = () => Promise.reject(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }));
    const spy = vi.spyOn(sql, "query").mockImplementation((text, params) =>
      text.includes("INSERT INTO memories") || text.startsWith("DELETE FROM idempotency_records WHERE user_id = $1::uuid AND key = $2 AND response IS NULL")
        ? lost()
        : query(text, params),
    );
    const headers = { "idempotency-key": "failed-unforgotten" };
    const before = await total();
    try {
      expect((await suite.user.api.post("/api/v1/memory", { content: "stored on the retry" }, { headers })).status).toBe(503);
    } finally {
      spy.mockRestore();
    }
    const retry = await suite.user.api.post("/api/v1/memory", { content: "stored on the retry" }, { headers });
    expect(retry.status, retry.text).toBe(201);
    expect(await total()).toBe(before + 1);
  });

  it("replays a batch; leaves the key of a refused REST request free, for the request corrected", async () => {
    const headers = { "idempotency-key": "batch-1" };
    const items = [{ content: "batch a" }, { content: "" }];
    const first = await suite.user.api.post("/api/v1/memory/batch", items, { headers });
    const again = await suite.user.api.post("/api/v1/memory/batch", items, { headers });
    expect(again.body).toEqual(first.body);
    expect(first.body.summary.successful).toBe(1);

    const bad = { "idempotency-key": "bad-1" };
    const refused = await suite.user.api.post("/api/v1/memory", { content: "" }, { headers: bad });
    const refusedAgain = await suite.user.api.post("/api/v1/memory", { content: "" }, { headers: bad });
    expect(refused.status).toBe(400);
    expect(refusedAgain.status).toBe(400);
    expect(refusedAgain.headers.get("idempotent-replayed")).toBeNull();
    const corrected = await suite.user.api.post("/api/v1/memory", { content: "corrected" }, { headers: bad });
    expect(corrected.status).toBe(201);
    const replayed = await suite.user.api.post("/api/v1/memory", { content: "corrected" }, { headers: bad });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body.id).toBe(corrected.body.id);
  });

  it("refuses the same request while the first is still running: 409, then replays it once it is done", async () => {
    // the first create is held at its insert until the second has been answered
    const { sql } = suite.server.app.db;
    const query = sql.query.bind(sql);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let inserting!: () => void;
    const held = new Promise<void>((resolve) => (inserting = resolve));
    const spy = vi.spyOn(sql, "query").mockImplementation(async (text, params) => {
      if (text.includes("INSERT INTO memories")) {
        inserting();
        await released;
      }
      return query(text, params);
    });
    const headers = { "idempotency-key": "in-flight-1" };
    try {
      const first = suite.user.api.post("/api/v1/memory", { content: "slow to store" }, { headers });
      await held;
      const meanwhile = await suite.user.api.post("/api/v1/memory", { content: "slow to store" }, { headers });
      expect(meanwhile.status).toBe(409);
      expect(meanwhile.body.error).toMatchObject({ code: "IDEMPOTENCY_CONFLICT", message: expect.stringMatching(/still running/) });
      // it passes: a client may come back (a conflict of bodies is final, and says no such thing)
      expect(meanwhile.headers.get("retry-after")).toBe("1");
      release();
      expect((await first).status).toBe(201);
    } finally {
      release();
      spy.mockRestore();
    }
    const after = await suite.user.api.post("/api/v1/memory", { content: "slow to store" }, { headers });
    expect(after.status).toBe(201);
    expect(after.headers.get("idempotent-replayed")).toBe("true");
  });

  it("leaves a key its stopped process held to the same request sent again: at once embedded, after the lease on PostgreSQL", async () => {
    // the record a process killed mid-request leaves: running, held by a process that is gone
    const body = { content: "cut short by a crash" };
    const key = "stopped-1";
    await suite.server.app.db.sql.query(
      "INSERT INTO idempotency_records (user_id, key, request_hash, owner) VALUES ($1::uuid, $2, $3, gen_random_uuid())",
      [suite.user.userId, key, requestHash("POST", "/api/v1/memory", JSON.stringify(body))],
    );
    const headers = { "idempotency-key": key };
    const other = await suite.user.api.post("/api/v1/memory", { content: "another body" }, { headers });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toMatch(/different request/);
    if (databaseUnderTest() === "postgres") {
      // another instance may still be running it
      const meanwhile = await suite.user.api.post("/api/v1/memory", body, { headers });
      expect(meanwhile.status).toBe(409);
      expect(meanwhile.body.error.message).toMatch(/still running/);
      await suite.server.app.db.sql.query(
        "UPDATE idempotency_records SET created_at = created_at - make_interval(secs => $3) WHERE user_id = $1::uuid AND key = $2",
        [suite.user.userId, key, IDEMPOTENCY_LEASE_SECONDS + 1],
      );
    }
    const retried = await suite.user.api.post("/api/v1/memory", body, { headers });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    const again = await suite.user.api.post("/api/v1/memory", body, { headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(retried.body.id);
  });

  it("keeps a key for 24 hours: replayed just before, a new request just after", async () => {
    const headers = { "idempotency-key": "window-1" };
    const first = await suite.user.api.post("/api/v1/memory", { content: "kept a day" }, { headers });
    const age = (minutes: number) =>
      suite.server.app.db.sql.query(
        "UPDATE idempotency_records SET created_at = now() - make_interval(mins => $2) WHERE user_id = $1::uuid AND key = $3",
        [suite.user.userId, minutes, headers["idempotency-key"]],
      );
    await age(24 * 60 - 5);
    const within = await suite.user.api.post("/api/v1/memory", { content: "kept a day" }, { headers });
    expect(within.headers.get("idempotent-replayed")).toBe("true");
    expect(within.body.id).toBe(first.body.id);
    await age(24 * 60 + 5);
    const after = await suite.user.api.post("/api/v1/memory", { content: "kept a day" }, { headers });
    expect(after.status).toBe(201);
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect(after.body.id).not.toBe(first.body.id);
  });

  it("applies to POST /api/v1/threads", async () => {
    const threads = async () => (await suite.user.api.get("/api/v1/threads")).body.total as number;
    await expectStoredOnce("/api/v1/threads", { title: "only one thread" }, "thread-1", threads);
  });

  it("keeps keys per user: another user's same key is a new request", async () => {
    const other = await suite.server.newUser();
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
    const first = await suite.user.api.graphql(query, undefined, { headers });
    const second = await suite.user.api.graphql(query, undefined, { headers });
    expect(second.body).toEqual(first.body);
    expect(await total()).toBe(before + 1);
  });

  // an alias (`s: key`) renamed the field the redaction looked for: the key was stored in full and replayed (outside probe)
  it.each([
    ["key", "gql-new-key"],
    ["s: key", "gql-new-key-aliased"],
  ])("never stores a new API key: a replay of createApiKey { %s } names the key by its prefix, and only its hash is kept", async (field, idempotencyKey) => {
    const query = `mutation { createApiKey(name: "by retry") { ${field} apiKey { id prefix } } }`;
    const headers = { "idempotency-key": idempotencyKey };
    const first = await suite.user.api.graphql(query, undefined, { headers });
    const name = field === "key" ? "key" : "s";
    const { [name]: key, apiKey } = first.body.data.createApiKey;
    expect(key).toMatch(/^msk_[A-Za-z0-9_-]{43}$/);
    const second = await suite.user.api.graphql(query, undefined, { headers });
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.data.createApiKey).toEqual({ [name]: `${apiKey.prefix}…`, apiKey });
    const stored = await suite.server.app.db.sql.query<{ response: unknown }>("SELECT response FROM idempotency_records");
    expect(JSON.stringify(stored)).not.toContain(key);
  });

  it("cuts, as it migrates, the full keys that answers kept before the cut found them under any name", async () => {
    const { sql } = suite.server.app.db;
    const key = `msk_${"A".repeat(20)}-_${"b".repeat(21)}`;
    const body = JSON.stringify({ data: { createApiKey: { s: key, apiKey: { prefix: key.slice(0, 12) } } } });
    await sql.query(
      `INSERT INTO idempotency_records (user_id, key, request_hash, response) VALUES ($1::uuid, 'kept-before', 'h', $2::jsonb)`,
      [suite.user.userId, JSON.stringify({ status: 200, headers: {}, body })],
    );
    const migration = readFileSync(new URL("../../prisma/migrations/20261207230000_scrub_replayed_keys/migration.sql", import.meta.url), "utf8");
    await sql.exec(migration);
    const [row] = await sql.query<{ response: { body: string } }>("SELECT response FROM idempotency_records WHERE key = 'kept-before'");
    expect(JSON.parse(row!.response.body).data.createApiKey.s).toBe(`${key.slice(0, 12)}…`);
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it("replays a GraphQL refusal: the document's mutations before it were written, and are not written again", async () => {
    const before = await total();
    const query = `mutation { a: createMemory(input: { content: "before the refusal" }) { id } b: deleteMemory(id: "00000000-0000-4000-8000-000000000000") }`;
    const headers = { "idempotency-key": "gql-refused" };
    const first = await suite.user.api.graphql(query, undefined, { headers });
    expect(first.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const second = await suite.user.api.graphql(query, undefined, { headers });
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await total()).toBe(before + 1);
  });

  // a replayed search showed a memory deleted (or expired) since the first answer, for the key's 24 hours (helper-27)
  it("answers reads afresh, key or not: POST search and recall, GraphQL queries", async () => {
    const created = (await suite.user.api.post("/api/v1/memory", { content: "my locker PIN at the office is 5521" })).body;
    const headers = { "idempotency-key": "read-1" };
    const search = () => suite.user.api.post("/api/v1/memory/search", { query: "office locker PIN", limit: 5 }, { headers });
    const recall = () => suite.user.api.post("/api/v1/memory/recall", { query: "office locker PIN", limit: 5 }, { headers: { "idempotency-key": "read-2" } });
    const graphql = () =>
      suite.user.api.graphql(`{ searchMemories(query: "office locker PIN", limit: 5) { results { id } } }`, undefined, { headers: { "idempotency-key": "read-3" } });
    const ids = (results: { id: string }[]) => results.map((result) => result.id);
    expect(ids((await search()).body.results)).toContain(created.id);
    expect(ids((await recall()).body.results)).toContain(created.id);
    expect(ids((await graphql()).body.data.searchMemories.results)).toContain(created.id);
    expect((await suite.user.api.delete(`/api/v1/memories/${created.id}`)).status).toBe(200);
    for (const res of [await search(), await recall()]) {
      expect(res.headers.get("idempotent-replayed")).toBeNull();
      expect(ids(res.body.results)).not.toContain(created.id);
    }
    const again = await graphql();
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(ids(again.body.data.searchMemories.results)).not.toContain(created.id);
  });

  it("refuses a malformed key", async () => {
    const res = await suite.user.api.post("/api/v1/memory", { content: "x" }, { headers: { "idempotency-key": "x".repeat(300) } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^Idempotency-Key must be/);
  });

  it("ignores the header on requests other than POST", async () => {
    const created = (await suite.user.api.post("/api/v1/memory", { content: "v1" })).body;
    const headers = { "idempotency-key": "patch-1" };
    await suite.user.api.patch(`/api/v1/memories/${created.id}`, { content: "v2" }, { headers });
    const res = await suite.user.api.patch(`/api/v1/memories/${created.id}`, { content: "v3" }, { headers });
    expect(res.body.content).toBe("v3");
  });
});
