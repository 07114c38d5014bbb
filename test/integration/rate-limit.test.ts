import { describe, expect, it, onTestFinished, vi } from "vitest";
import { databaseAgnosticRun, databaseUnavailable, databaseUnderTest, freshPostgresDatabase, startTestServer, suiteServer, type TestServer } from "../support/server.ts";
import { freezableRelay } from "../support/freezable-relay.ts";
import { RateLimit } from "../../src/auth/rate-limit.ts";
import type { Config } from "../../src/config.ts";
import { createLogger, type Logger } from "../../src/logger.ts";
import { redisAvailable, redisUrl } from "../support/redis.ts";

const withRedis = await redisAvailable();

describe.runIf(databaseAgnosticRun())("rate limits", () => {
  const suite = suiteServer({ RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW_SECONDS: "2" });

  it("puts X-RateLimit-Limit, -Remaining and -Reset on every authenticated response, counting down", async () => {
    // a window of its own, long enough that a loaded machine cannot start a new one between the four requests
    const own = await startTestServer({ RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW_SECONDS: "60" });
    onTestFinished(() => own.close());
    const user = await own.newUser();
    const before = Math.floor(Date.now() / 1000);
    const remaining: number[] = [];
    for (const res of [
      await user.api.get("/api/v1/memory"),
      await user.api.post("/api/v1/memory", { content: "x" }),
      await user.api.graphql("{ me { id } }"),
      await user.api.get("/api/v1/memories/00000000-0000-4000-8000-000000000000"),
    ]) {
      expect(res.headers.get("x-ratelimit-limit")).toBe("5");
      const reset = Number(res.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThanOrEqual(before);
      // the window ends at most 60 s after the request was counted, which was before now
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
    }
    expect(remaining).toEqual([4, 3, 2, 1]);
  });

  it("answers 429 RATE_LIMITED with Retry-After past the limit, on REST and GraphQL, and lets the key in again after the window", async () => {
    const user = await suite.server.newUser();
    for (let i = 0; i < 5; i++) expect((await user.api.get("/api/v1/memory")).status).toBe(200);
    const rest = await user.api.get("/api/v1/memory");
    expect(rest.status).toBe(429);
    expect(rest.body.error.code).toBe("RATE_LIMITED");
    expect(Number(rest.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(rest.headers.get("x-ratelimit-remaining")).toBe("0");
    const gql = await user.api.graphql("{ me { id } }");
    expect(gql.status).toBe(429);
    expect(gql.body.errors?.[0]?.extensions?.code).toBe("RATE_LIMITED");

    await new Promise((resolve) => setTimeout(resolve, Number(rest.headers.get("retry-after")) * 1000 + 100));
    const again = await user.api.get("/api/v1/memory");
    expect(again.status).toBe(200);
    expect(again.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("counts each mutation of a GraphQL document as a request, aliases and fragments included, refusing before any runs", async () => {
    const own = await startTestServer({ RATE_LIMIT_MAX: "10", RATE_LIMIT_WINDOW_SECONDS: "60" });
    onTestFinished(() => own.close());
    const user = await own.newUser();
    const creates = (n: number) => Array.from({ length: n }, (_, i) => `c${i}: createMemory(input: { content: "aliased ${n} ${i}" }) { id }`).join(" ");
    const stored = async () => (await own.app.services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM memories WHERE user_id = $1::uuid", [user.userId]))[0]!.n;
    // four aliases and one through a fragment: five requests, the document's own among them
    const five = await user.api.graphql(`mutation { ${creates(4)} ...more } fragment more on Mutation { f: createMemory(input: { content: "by fragment" }) { id } }`);
    expect(five.status, five.text).toBe(200);
    expect(five.headers.get("x-ratelimit-remaining")).toBe("5");
    expect(await stored()).toBe(5);
    expect(Number((await user.api.graphql("{ me { id } }")).headers.get("x-ratelimit-remaining"))).toBe(4);
    const six = await user.api.graphql(`mutation { ${creates(6)} }`);
    expect(six.status).toBe(429);
    expect(six.body.errors?.[0]?.extensions?.code).toBe("RATE_LIMITED");
    expect(Number(six.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await stored()).toBe(5);
  });

  it("counts per key: one key at its limit does not hold back another", async () => {
    const noisy = await suite.server.newUser();
    const quiet = await suite.server.newUser();
    for (let i = 0; i < 8; i++) await noisy.api.get("/api/v1/memory");
    expect((await noisy.api.get("/api/v1/memory")).status).toBe(429);
    const res = await quiet.api.get("/api/v1/memory");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("does not count or mark requests without a valid key", async () => {
    const res = await suite.server.client().get("/api/v1/memory");
    expect(res.status).toBe(401);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe.runIf(databaseAgnosticRun())("failed authentications per client address", () => {
  const suite = suiteServer({ AUTH_FAILURE_LIMIT_MAX: "3", AUTH_FAILURE_WINDOW_SECONDS: "60", TRUST_PROXY_HOPS: "1" });

  // behind one trusted proxy, X-Forwarded-For's last entry is the client: each test is a client of its own
  const from = (address: string, key = "msk_not-a-real-key") =>
    suite.server.client(key).get("/api/v1/memory", { headers: { "x-forwarded-for": `198.51.100.1, ${address}` } });

  it("answers 401 to the first refused keys, then 429 with Retry-After, valid key or not, without looking keys up", async () => {
    const user = await suite.server.newUser();
    for (let i = 0; i < 3; i++) expect((await from("203.0.113.7")).status).toBe(401);
    const lookups = vi.spyOn(suite.server.app.services.apiKeys, "authenticate");
    const refused = await from("203.0.113.7");
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("RATE_LIMITED");
    expect(refused.headers.get("x-ratelimit-limit")).toBe("3");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await from("203.0.113.7", user.key)).status).toBe(429);
    const graphql = await suite.server.client("msk_nope").graphql("{ me { id } }", undefined, { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(graphql.status).toBe(429);
    expect(lookups).not.toHaveBeenCalled();
    lookups.mockRestore();
    // another address, and requests with no key, are not held back
    expect((await from("203.0.113.8", user.key)).status).toBe(200);
    expect((await suite.server.client().get("/api/v1/memory", { headers: { "x-forwarded-for": "203.0.113.7" } })).status).toBe(401);
  });

  it("reads the client from X-Forwarded-For only as far as TRUST_PROXY_HOPS allows", async () => {
    // the client wrote the first entries itself: changing them does not give it a new budget
    for (let i = 0; i < 3; i++) {
      const res = await suite.server.client("msk_nope").get("/api/v1/memory", { headers: { "x-forwarded-for": `10.0.0.${i}, 203.0.113.9` } });
      expect(res.status).toBe(401);
    }
    expect((await from("203.0.113.9")).status).toBe(429);
  });
});

// two servers need one database to know the same key: PostgreSQL (the embedded one admits one process)
describe.skipIf(databaseUnavailable() || databaseUnderTest() !== "postgres" || !withRedis)(
  "rate limits shared through Redis",
  () => {
    it("makes two server instances count one limit per key", async () => {
      const db = await freshPostgresDatabase();
      const env = { DATABASE_URL: db.url, REDIS_URL: redisUrl(), RATE_LIMIT_MAX: "6", RATE_LIMIT_WINDOW_SECONDS: "30", AUTH_FAILURE_LIMIT_MAX: "2", TRUST_PROXY_HOPS: "1" };
      const a = await startTestServer(env);
      const b = await startTestServer(env);
      try {
        const user = await a.newUser();
        const remaining: number[] = [];
        for (let i = 0; i < 6; i++) {
          const res = await (i % 2 ? b : a).client(user.key).get("/api/v1/memory");
          expect(res.status).toBe(200);
          remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
        }
        expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
        expect((await a.client(user.key).get("/api/v1/memory")).status).toBe(429);
        expect((await b.client(user.key).get("/api/v1/memory")).status).toBe(429);
        // refused keys from one address count on every instance (a fresh address for each run: the window outlives it)
        const address = `192.0.2.${Date.now() % 250}-${process.pid}`;
        const guess = (server: TestServer) =>
          server.client("msk_guess").get("/api/v1/memory", { headers: { "x-forwarded-for": address } });
        expect([(await guess(a)).status, (await guess(b)).status, (await guess(a)).status]).toEqual([401, 401, 429]);
        expect((await guess(b)).status).toBe(429);
      } finally {
        await a.app.close();
        await b.app.close();
        await db.drop();
      }
    });
  },
);

describe.runIf(databaseAgnosticRun() && withRedis)("rate limits while Redis is connected but does not answer", () => {
  // a stopped Redis (kill -STOP) held every authenticated request until it answered again, 70 s in one probe (helper-24)
  it("counts in this process after one command timeout, and shares the count again once Redis answers", async () => {
    const redis = await freezableRelay(redisUrl());
    onTestFinished(() => redis.close());
    const server = await startTestServer({ REDIS_URL: redis.url, RATE_LIMIT_MAX: "100", RATE_LIMIT_WINDOW_SECONDS: "60" });
    onTestFinished(() => server.close());
    const user = await server.newUser();
    const remaining = async () => {
      const started = performance.now();
      const res = await user.api.get("/api/v1/memory");
      expect(res.status).toBe(200);
      return { left: Number(res.headers.get("x-ratelimit-remaining")), ms: performance.now() - started };
    };
    expect((await remaining()).left).toBe(99);
    const warn = vi.spyOn(server.app.logger, "warn");
    redis.freeze(true);
    const during = [await remaining(), await remaining(), await remaining()];
    // the first waits for the command's timeout, the next ones not at all; counted here, from scratch
    expect(during[0]!.ms).toBeLessThan(2_000);
    expect(Math.max(during[1]!.ms, during[2]!.ms)).toBeLessThan(during[0]!.ms);
    expect(during.map((r) => r.left)).toEqual([99, 98, 97]);
    expect(warn).toHaveBeenCalledWith(expect.anything(), "Redis for rate limits failed a count: each instance counts alone until it answers");
    redis.freeze(false);
    // Redis asked again once its failure is 5 s old: the shared count goes on from where Redis has it (this process'
    // own would say 96). The stall found by the address check spared the key's count its wait: it never reached Redis
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    expect((await remaining()).left).toBe(98);
  });
});

// Two windows of a restarted instance under load counted alone (a fresh budget for a key used up elsewhere): the
// first counts were asked before Redis was ready, and a busy event loop timed out answers that had come (outside probe)
describe.runIf(databaseAgnosticRun() && withRedis)("rate limits shared through Redis, from start and under load", () => {
  const config = (url: string) =>
    ({
      rateLimit: { redisUrl: url, max: 50, windowSeconds: 60 },
      authFailureLimit: { max: 20, windowSeconds: 60 },
    }) as unknown as Config;
  const limits = async (url: string, warn = vi.fn()) => {
    const logger = { ...createLogger("silent"), warn } as unknown as Logger;
    const limit = await RateLimit.create(config(url), logger, () => {});
    onTestFinished(() => limit.close());
    return limit;
  };
  const left = (state: { headers: Record<string, string> }) => Number(state.headers["x-ratelimit-remaining"]);

  it("waits for Redis at start, so that its first count is the shared one", async () => {
    const redis = await freezableRelay(redisUrl());
    onTestFinished(() => redis.close());
    const key = `start-${process.pid}-${Date.now()}`;
    redis.freeze(true); // its handshake held until the relay thaws
    setTimeout(() => redis.freeze(false), 400);
    const warn = vi.fn();
    const limit = await limits(redis.url, warn);
    expect(left(await limit.consume(key))).toBe(49);
    expect(left(await (await limits(redisUrl())).consume(key)), "another instance sees the count").toBe(48);
    expect(warn).not.toHaveBeenCalled();
  });

  it("takes Redis' answer that came while the event loop was busy past the wait", async () => {
    const warn = vi.fn();
    const limit = await limits(redisUrl(), warn);
    const key = `busy-${process.pid}-${Date.now()}`;
    expect(left(await limit.consume(key))).toBe(49); // its script loaded
    const counted = limit.consume(key);
    const until = performance.now() + 400; // the loop held past the 250 ms wait, Redis' answer in its socket
    while (performance.now() < until);
    expect(left(await counted)).toBe(48);
    expect(left(await (await limits(redisUrl())).consume(key)), "counted in Redis").toBe(47);
    expect(warn).not.toHaveBeenCalled();
  });
});
