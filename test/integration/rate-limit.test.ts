import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { databaseUnavailable, databaseUnderTest, freshPostgresDatabase, startTestServer, type TestServer } from "../support/server.ts";
import { redisAvailable, redisUrl } from "../support/redis.ts";

const withRedis = await redisAvailable();

describe.skipIf(databaseUnavailable())("rate limits", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW_SECONDS: "2" });
  });
  afterAll(() => server?.close());

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
      expect(reset).toBeLessThanOrEqual(before + 61);
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
    }
    expect(remaining).toEqual([4, 3, 2, 1]);
  });

  it("answers 429 RATE_LIMITED with Retry-After past the limit, on REST and GraphQL, and lets the key in again after the window", async () => {
    const user = await server.newUser();
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

  it("counts per key: one key at its limit does not hold back another", async () => {
    const noisy = await server.newUser();
    const quiet = await server.newUser();
    for (let i = 0; i < 8; i++) await noisy.api.get("/api/v1/memory");
    expect((await noisy.api.get("/api/v1/memory")).status).toBe(429);
    const res = await quiet.api.get("/api/v1/memory");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("does not count or mark requests without a valid key", async () => {
    const res = await server.client().get("/api/v1/memory");
    expect(res.status).toBe(401);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

// two servers need one database to know the same key: PostgreSQL (the embedded one admits one process)
describe.skipIf(databaseUnavailable() || databaseUnderTest() !== "postgres" || !withRedis)(
  "rate limits shared through Redis",
  () => {
    it("makes two server instances count one limit per key", async () => {
      const db = await freshPostgresDatabase();
      const env = { DATABASE_URL: db.url, REDIS_URL: redisUrl(), RATE_LIMIT_MAX: "6", RATE_LIMIT_WINDOW_SECONDS: "30" };
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
      } finally {
        await a.app.close();
        await b.app.close();
        await db.drop();
      }
    });
  },
);
