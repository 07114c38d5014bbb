import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { redisAvailable, redisUrl } from "../support/redis.ts";
import {
  databaseUnavailable,
  databaseUnderTest,
  freshPostgresDatabase,
  serverWithUser,
  startTestServer,
  suiteDatabase,
  type TestServer,
  type TestUser,
} from "../support/server.ts";
import { subscribe, type Subscription } from "../../scripts/lib/sse-client.ts";
import { runCli, serverProcess } from "../support/child-processes.ts";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/lib/server-process.ts";
import { warnUntested } from "../support/loud.ts";

const withRedis = await redisAvailable("THE CROSS-INSTANCE SUBSCRIPTION TESTS");

const MEMORY_EVENTS = /* GraphQL */ `
  subscription Memories($types: [EventType!], $threadId: ID) {
    memoryEvents(types: $types, threadId: $threadId) { id type timestamp memoryId threadId previousThreadId data }
  }
`;
const THREAD_EVENTS = /* GraphQL */ `subscription { threadEvents { type threadId timestamp data } }`;

async function listen(server: TestServer, who: TestUser | undefined, query = MEMORY_EVENTS, variables = {}): Promise<Subscription> {
  const subscription = await subscribe(server.url, who?.key, query, variables);
  onTestFinished(() => subscription.close());
  return subscription;
}

const remember = async (who: TestUser, body: Record<string, unknown>) => {
  const res = await who.api.post("/api/v1/memory", body);
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
};

describe.skipIf(databaseUnavailable())("GraphQL subscriptions over Server-Sent Events", () => {
  const suite = serverWithUser();

  describe("memoryEvents", () => {
    it("delivers memory.created within a second of a REST create, and nothing of another user", async () => {
      const other = await suite.server.newUser();
      const mine = await listen(suite.server, suite.user);
      const theirs = await listen(suite.server, other);
      const started = performance.now();
      const { id } = await remember(suite.user, { content: "likes green tea", tags: ["drinks"] });
      const { data } = await mine.nth(0, 1000);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(data.memoryEvents).toMatchObject({
        type: "MEMORY_CREATED",
        memoryId: id,
        threadId: null,
        data: { id, content: "likes green tea", tags: ["drinks"] },
      });
      // the other user's first event is their own write: the first user's never reached them
      const own = await remember(other, { content: "theirs" });
      expect((await theirs.nth(0)).data.memoryEvents.memoryId).toBe(own.id);
      expect(mine.received).toHaveLength(1);
    });

    it("ends a stream whose key is revoked at its next event, which it does not carry", async () => {
      const who = await suite.server.newUser();
      const second = await suite.server.app.services.apiKeys.create(who.userId, "phone");
      const stream = await listen(suite.server, { ...who, key: second.key });
      const before = await remember(who, { content: "before the revocation" });
      expect((await stream.nth(0)).data.memoryEvents.memoryId).toBe(before.id);
      // on PostgreSQL a stream takes its key to stand for a second after finding it so (ApiKeyService.stands)
      if (databaseUnderTest() === "postgres") await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await who.api.graphql("mutation($id: ID!) { revokeApiKey(id: $id) { id } }", { id: second.apiKey.id })).body.errors).toBeUndefined();
      await remember(who, { content: "after the revocation: never sent to that key" });
      const within = new Promise((resolve) => setTimeout(() => resolve("still open"), 5_000));
      expect(await Promise.race([stream.ended.then(() => "ended"), within])).toBe("ended");
      expect(stream.received).toHaveLength(1);
      expect(JSON.stringify(stream.received)).not.toContain("never sent");
    });

    it("delivers only the types and the thread asked for", async () => {
      const who = await suite.server.newUser();
      const thread = (await who.api.post("/api/v1/threads", { title: "Trip" })).body as { id: string };
      const deletes = await listen(suite.server, who, MEMORY_EVENTS, { types: ["MEMORY_DELETED"], threadId: thread.id });
      const elsewhere = await remember(who, { content: "elsewhere" });
      const inThread = await remember(who, { content: "in the thread", thread_id: thread.id });
      expect((await who.api.delete(`/api/v1/memories/${elsewhere.id}`)).status).toBe(200);
      expect((await who.api.delete(`/api/v1/memories/${inThread.id}`)).status).toBe(200);
      const { data } = await deletes.nth(0);
      expect(data.memoryEvents).toMatchObject({ type: "MEMORY_DELETED", memoryId: inThread.id, threadId: thread.id, data: null });
    });

    it("tells a thread's subscribers of a memory moved out of it, to another thread or to none", async () => {
      const who = await suite.server.newUser();
      const [from, to] = await Promise.all(["From", "To"].map(async (title) => ((await who.api.post("/api/v1/threads", { title })).body as { id: string }).id));
      const [leaving, arriving] = [await listen(suite.server, who, MEMORY_EVENTS, { threadId: from }), await listen(suite.server, who, MEMORY_EVENTS, { threadId: to })];
      const moved = await remember(who, { content: "moves", thread_id: from });
      expect((await who.api.patch(`/api/v1/memories/${moved.id}`, { thread_id: to })).status).toBe(200);
      const move = { type: "MEMORY_UPDATED", memoryId: moved.id, threadId: to, previousThreadId: from };
      expect((await leaving.nth(1)).data.memoryEvents).toMatchObject(move);
      expect((await arriving.nth(0)).data.memoryEvents).toMatchObject({ ...move, data: { threadId: to } });
      expect((await who.api.patch(`/api/v1/memories/${moved.id}`, { thread_id: null })).status).toBe(200);
      expect((await arriving.nth(1)).data.memoryEvents).toMatchObject({ type: "MEMORY_UPDATED", threadId: to, previousThreadId: to });
      expect((await who.api.patch(`/api/v1/memories/${moved.id}`, { tags: ["still in no thread"] })).status).toBe(200);
      const unmoved = await remember(who, { content: "stays", thread_id: from });
      expect((await leaving.nth(2)).data.memoryEvents).toMatchObject({ memoryId: unmoved.id, previousThreadId: null });
      expect(arriving.received).toHaveLength(2);
    });

    it("refuses thread event types, with the error as the stream's payload", async () => {
      const sub = await listen(suite.server, suite.user, MEMORY_EVENTS, { types: ["THREAD_CREATED"] });
      const { errors } = await sub.nth(0);
      expect(errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
    });

    // such a stream opened and carried nothing, saying nothing (writes naming the thread are refused)
    it("refuses a thread that is not the caller's, or not there, as writes do", async () => {
      const other = await suite.server.newUser();
      const theirs = (await other.api.post("/api/v1/threads", { title: "theirs" })).body.id as string;
      for (const threadId of [theirs, "00000000-0000-4000-8000-000000000000"]) {
        const sub = await listen(suite.server, suite.user, MEMORY_EVENTS, { threadId });
        const { errors } = await sub.nth(0);
        expect(errors?.[0]).toMatchObject({ message: "threadId does not name one of your threads", extensions: { code: "VALIDATION_ERROR" } });
      }
    });
  });

  describe("threadEvents", () => {
    it("delivers thread.created, thread.updated and thread.deleted", async () => {
      const who = await suite.server.newUser();
      const sub = await listen(suite.server, who, THREAD_EVENTS);
      const { id } = (await who.api.post("/api/v1/threads", { title: "Trip" })).body as { id: string };
      await who.api.patch(`/api/v1/threads/${id}`, { title: "Trip to Lisbon" });
      await who.api.delete(`/api/v1/threads/${id}`);
      const events = await Promise.all([0, 1, 2].map((n) => sub.nth(n)));
      expect(events.map(({ data }) => [data.threadEvents.type, data.threadEvents.threadId])).toEqual([
        ["THREAD_CREATED", id],
        ["THREAD_UPDATED", id],
        ["THREAD_DELETED", id],
      ]);
      expect(events[1]!.data.threadEvents.data).toMatchObject({ title: "Trip to Lisbon", memoryCount: 0 });
      // dated as the thread's own times say (they were a millisecond or two off: the process sets a thread's times)
      for (const { data } of events.slice(0, 2)) expect(data.threadEvents.timestamp).toBe(data.threadEvents.data.updatedAt);
    });

    it("dates an imported thread's event by the import, not by the times the file gives the thread", async () => {
      const who = await suite.server.newUser();
      const sub = await listen(suite.server, who, THREAD_EVENTS);
      const id = "0f1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b";
      const line = JSON.stringify({ kind: "thread", id, title: "from last year", created_at: "2025-11-01T00:00:00.000Z", updated_at: "2025-11-01T00:00:00.000Z" });
      const before = Date.now();
      const imported = await who.api.post("/api/v1/import", undefined, { raw: `${line}\n`, headers: { "content-type": "application/x-ndjson" } });
      expect(imported.body.results[0], imported.text).toMatchObject({ status: "created", id });
      const { data } = await sub.nth(0);
      expect(data.threadEvents).toMatchObject({ type: "THREAD_CREATED", threadId: id, data: { updatedAt: "2025-11-01T00:00:00.000Z" } });
      expect(Date.parse(data.threadEvents.timestamp)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(data.threadEvents.timestamp)).toBeLessThanOrEqual(Date.now());
    });
  });

  describe("the stream", () => {
    it("is counted on /metrics while open", async () => {
      const open = async () => {
        const text = (await suite.server.client().get("/metrics")).text;
        return Number(/^event_streams_open (\d+)$/m.exec(text)?.[1]);
      };
      /** The count once it reads `wanted` (streams of earlier tests may still be closing), or as it is after a second. */
      const reaching = async (wanted: (count: number) => boolean) => {
        let count = await open();
        for (let tries = 0; !wanted(count) && tries < 50; tries++) count = await new Promise((resolve) => setTimeout(resolve, 20)).then(open);
        return count;
      };
      let settled = await open();
      for (let last = Number.NaN; settled !== last; ) [last, settled] = [settled, await reaching((count) => count !== settled)];
      const sub = await listen(suite.server, suite.user);
      expect(await reaching((count) => count === settled + 1)).toBe(settled + 1);
      sub.close();
      expect(await reaching((count) => count === settled)).toBe(settled);
    });

    it("answers 401 without a key", async () => {
      expect((await subscribe(suite.server.url, undefined, MEMORY_EVENTS)).status).toBe(401);
    });

    it("refuses an Idempotency-Key (an event stream cannot be replayed)", async () => {
      const sub = await subscribe(suite.server.url, suite.user.key, MEMORY_EVENTS, {}, { "idempotency-key": "k1" });
      expect(sub.status).toBe(400);
      // also when the client accepts anything, and the answer would have been an event stream
      const any = await subscribe(suite.server.url, suite.user.key, MEMORY_EVENTS, {}, { "idempotency-key": "k2", accept: "*/*" });
      expect(any.status).toBe(400);
    });

    // graphql-js 16 decided them in validation without the variables: `@include(if: $on)` was refused as "not provided",
    // and `@skip(if: true)` left nothing to subscribe to (500 INTERNAL)
    it.each([
      ["subscription { memoryEvents @skip(if: true) { id } }", {}],
      ["subscription On($on: Boolean!) { memoryEvents @include(if: $on) { id } }", { on: true }],
      ["subscription { ... on Subscription { memoryEvents @skip(if: false) { id } } }", {}],
      ["subscription { ...Events } fragment Events on Subscription { memoryEvents @include(if: true) { id } }", {}],
    ])("refuses @skip and @include at the top level with VALIDATION_ERROR: %s", async (query, variables) => {
      const sub = await subscribe(suite.server.url, suite.user.key, query, variables);
      onTestFinished(() => sub.close());
      expect(sub.status).toBe(200);
      const { errors } = await sub.nth(0);
      expect(errors?.[0]).toMatchObject({
        message: expect.stringMatching(/must not use @skip or @include on its top-level selection/),
        extensions: { code: "VALIDATION_ERROR" },
      });
    });

    // graphql-sse, the protocol's client, took the 400 these were answered with for a failed connection: it retried
    // them, and the errors never reached the caller (outside probe)
    it.each([
      ["an unknown field", "subscription { memoryEvents { nope } }", {}, /Cannot query field "nope"/],
      ["a variable missing", "subscription Of($t: ID!) { memoryEvents(threadId: $t) { id } }", {}, /"\$t" of required type "ID!" was not provided/],
      ["a syntax error", "subscription { memoryEvents { id }", {}, /^Syntax Error/],
      ["a refused argument", "subscription { memoryEvents(types: [THREAD_CREATED]) { id } }", {}, /is not one of memory.created/],
    ])("answers a subscription refused for %s with 200 and its errors as the stream's one payload, then ends it", async (_, query, variables, message) => {
      const sub = await subscribe(suite.server.url, suite.user.key, query, variables);
      onTestFinished(() => sub.close());
      expect(sub.status).toBe(200);
      const { errors } = await sub.nth(0);
      expect(errors?.[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code: "VALIDATION_ERROR" } });
      await sub.ended;
      expect(sub.received).toHaveLength(1);
    });

    it("takes @skip and @include with variables below the top level", async () => {
      const who = await suite.server.newUser();
      const query = "subscription On($on: Boolean!) { memoryEvents { memoryId type @include(if: $on) } }";
      const sub = await listen(suite.server, who, query, { on: false });
      expect(sub.status).toBe(200);
      const { id } = await remember(who, { content: "conditional fields" });
      expect((await sub.nth(0, 1000)).data.memoryEvents).toEqual({ memoryId: id });
    });

    it("answers 406 NOT_ACCEPTABLE, saying why, to a client that accepts only JSON", async () => {
      const res = await fetch(`${suite.server.url}/graphql`, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json", authorization: `Bearer ${suite.user.key}` },
        body: JSON.stringify({ query: MEMORY_EVENTS }),
      });
      expect(res.status).toBe(406);
      expect(res.headers.get("accept"), "Accept is a request header").toBeNull();
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]).toMatchObject({ extensions: { code: "NOT_ACCEPTABLE" }, message: expect.stringContaining("text/event-stream") });
    });

    it.each(["*/*", ""])("streams the events to a client whose Accept is %j, as it would to text/event-stream", async (accept) => {
      const who = await suite.server.newUser();
      const sub = await subscribe(suite.server.url, who.key, MEMORY_EVENTS, {}, { accept });
      onTestFinished(() => sub.close());
      expect(sub.status).toBe(200);
      const { id } = await remember(who, { content: "accepts anything" });
      expect((await sub.nth(0, 1000)).data.memoryEvents).toMatchObject({ type: "MEMORY_CREATED", memoryId: id });
    });

    it("is not compressed, even when the client accepts compression", async () => {
      const res = await fetch(`${suite.server.url}/graphql`, {
        method: "POST",
        headers: {
          accept: "text/event-stream",
          "accept-encoding": "gzip, br",
          "content-type": "application/json",
          authorization: `Bearer ${suite.user.key}`,
        },
        body: JSON.stringify({ query: MEMORY_EVENTS }),
      });
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(res.headers.get("content-encoding"), "no Content-Encoding at all (Yoga's own is none, no coding)").toBeNull();
      await res.body?.cancel();
    });
  });
});

describe.skipIf(databaseUnavailable())("a long subscription", () => {
  const suite = serverWithUser({ HTTP_REQUEST_TIMEOUT_SECONDS: "1", HTTP_HEADERS_TIMEOUT_SECONDS: "1" });

  it("outlives the request timeouts, which bound receiving the request, not the answer", async () => {
    const sub = await listen(suite.server, suite.user);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const { id } = await remember(suite.user, { content: "still listening" });
    expect((await sub.nth(0)).data.memoryEvents.memoryId).toBe(id);
  });
});

describe.skipIf(databaseUnavailable())("open event streams per user", () => {
  const suite = serverWithUser({ HTTP_MAX_EVENT_STREAMS_PER_USER: "2" });

  it("refuses one more than HTTP_MAX_EVENT_STREAMS_PER_USER with 429, whatever the key, until one closes", async () => {
    const first = await listen(suite.server, suite.user);
    const second = await listen(suite.server, suite.user);
    expect([first.status, second.status]).toEqual([200, 200]);
    const sameUser = await suite.server.newUser(suite.user.handle);
    expect(sameUser.userId).toBe(suite.user.userId);
    const third = await fetch(`${suite.server.url}/graphql`, {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json", authorization: `Bearer ${sameUser.key}` },
      body: JSON.stringify({ query: MEMORY_EVENTS }),
    });
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ errors: [{ extensions: { code: "RATE_LIMITED" } }] });
    // another user's streams are their own
    expect((await listen(suite.server, await suite.server.newUser())).status).toBe(200);
    // the refused stream left no subscription behind, and the open ones still carry events
    const { id } = await remember(suite.user, { content: "two streams" });
    expect((await second.nth(0, 1000)).data.memoryEvents.memoryId).toBe(id);
    first.close();
    let again = await listen(suite.server, suite.user);
    for (let tries = 0; again.status === 429 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await listen(suite.server, suite.user);
    }
    expect(again.status, "a stream closed frees its place").toBe(200);
  });
});

describe.skipIf(databaseUnavailable())("subscriptions when the server stops", () => {
  const database = suiteDatabase();

  // as a deployment runs it: the build, stopped by SIGTERM (without NODE_ENV=test, which children no longer get from
  // vitest: under it the stream's read settled once the stream was cancelled, and this passed while, run as
  // `npm start` runs, a drain waited for the next keep-alive or its timeout)
  it("ends open streams at once, as whole responses, rather than waiting for them", async () => {
    const env = { ...database.env, EMBEDDER: "hash", SHUTDOWN_TIMEOUT_MS: "600000" };
    const created = await runCli("keys", ["create", "--user", "sse@x", "--name", "t", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const server = await serverProcess(env);
    try {
      const sub = await subscribe(server.url, (JSON.parse(created.stdout) as { key: string }).key, MEMORY_EVENTS);
      expect(sub.status).toBe(200);
      server.child.kill("SIGTERM");
      const within = (ms: number) => new Promise((resolve) => setTimeout(() => resolve("still open"), ms));
      expect(await Promise.race([sub.ended.then(() => "ended"), within(5_000)])).toBe("ended"); // by the server
      expect(await server.exited).toBe(0);
      expect(sub.complete, "the chunked response ended with its last chunk").toBe(true);
    } finally {
      server.child.kill("SIGKILL");
    }
  });
});

// Redis down (REDIS_URL to a port nothing listens on): an instance's own writes still reach its own subscribers
// (they once went only through Redis, and stopped), /readyz says so without failing, and SIGTERM does not wait for
// Redis (it once hung ~25 s on the queued commands and exited 1)
describe.skipIf(databaseUnavailable())("subscriptions when Redis cannot be reached", () => {
  const database = suiteDatabase();

  it("delivers the instance's own events, reports Redis in /readyz, and stops at once", async () => {
    const env = { ...database.env, EMBEDDER: "hash", REDIS_URL: `redis://127.0.0.1:${await freePort()}` };
    const created = await runCli("keys", ["create", "--user", "no-redis@x", "--name", "t", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const key = (JSON.parse(created.stdout) as { key: string }).key;
    const server = await serverProcess(env);
    try {
      const sub = await subscribe(server.url, key, MEMORY_EVENTS);
      expect(sub.status).toBe(200);
      const res = await fetch(`${server.url}/api/v1/memory`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ content: "written while Redis is down" }),
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      expect((await sub.nth(0, 1000)).data.memoryEvents).toMatchObject({ type: "MEMORY_CREATED", memoryId: id });
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status, "Redis is not needed to serve").toBe(200);
      expect(await ready.json()).toMatchObject({ status: "degraded", checks: { database: { ok: true }, redis: { ok: false } } });
      const stopping = performance.now();
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      expect(performance.now() - stopping).toBeLessThan(5_000);
      sub.close();
    } finally {
      server.child.kill("SIGKILL");
    }
  });
});

describe.skipIf(databaseUnavailable() || databaseUnderTest() !== "postgres" || !withRedis)(
  "subscriptions across instances (PostgreSQL + Redis)",
  () => {
    let a: TestServer;
    let b: TestServer;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const db = await freshPostgresDatabase();
      drop = db.drop;
      const env = { DATABASE_URL: db.url, REDIS_URL: redisUrl() };
      a = await startTestServer(env);
      b = await startTestServer(env);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await drop?.();
    });

    it("a subscriber on one instance receives a write made on the other, once", async () => {
      const user = await a.newUser();
      const onB = await listen(b, user);
      const onA = await listen(a, user);
      // Redis confirms a SUBSCRIBE asynchronously: give it a moment before writing
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { id } = await remember(user, { content: "written on A" });
      expect((await onB.nth(0, 2000)).data.memoryEvents).toMatchObject({ type: "MEMORY_CREATED", memoryId: id });
      expect((await onA.nth(0, 2000)).data.memoryEvents.memoryId).toBe(id);
      const second = await remember({ ...user, api: b.client(user.key) }, { content: "written on B" });
      expect((await onA.nth(1, 2000)).data.memoryEvents.memoryId).toBe(second.id);
      expect((await onB.nth(1, 2000)).data.memoryEvents.memoryId).toBe(second.id);
      expect(onB.received).toHaveLength(2);
    });
  },
);

// A Redis of the test's own, stopped and started again: instance B's subscription comes back with it (ioredis
// resubscribes), so the writes made on A after it hear on B again; while it was away, A's own subscribers still heard
const redisServer = spawnSync("redis-server", ["--version"]).status === 0;
if (!redisServer) warnUntested(["redis-server is not installed: THE TEST OF REDIS COMING BACK IS SKIPPED."]);

describe.skipIf(databaseUnavailable() || databaseUnderTest() !== "postgres" || !redisServer)("subscriptions across instances when Redis comes back", () => {
  it("hears the other instance's writes again once Redis is back", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "redis-back-"));
    const startRedis = async () => {
      const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
      for (let tries = 0; spawnSync("redis-cli", ["-p", String(port), "ping"]).stdout?.toString().trim() !== "PONG"; tries++) {
        if (tries > 50) throw new Error("the test's Redis did not start");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return child;
    };
    let redis = await startRedis();
    const db = await freshPostgresDatabase();
    const env = { DATABASE_URL: db.url, REDIS_URL: `redis://127.0.0.1:${port}` };
    const a = await startTestServer(env);
    const b = await startTestServer(env);
    try {
      const user = await a.newUser();
      const onB = await listen(b, user);
      const onA = await listen(a, user);
      await new Promise((resolve) => setTimeout(resolve, 300)); // Redis confirms a SUBSCRIBE asynchronously
      const first = await remember(user, { content: "before Redis went away" });
      expect((await onB.nth(0, 2000)).data.memoryEvents.memoryId).toBe(first.id);
      redis.kill("SIGKILL");
      await once(redis, "exit");
      const during = await remember(user, { content: "while Redis is away" });
      expect((await onA.nth(1, 2000)).data.memoryEvents.memoryId, "A's own subscriber").toBe(during.id);
      redis = await startRedis();
      // ioredis reconnects within its retry delay (at most 2 s) and subscribes again
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const after = await remember(user, { content: "Redis is back" });
      expect((await onB.nth(1, 3000)).data.memoryEvents.memoryId).toBe(after.id);
    } finally {
      await a.close();
      await b.close();
      redis.kill("SIGKILL");
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
