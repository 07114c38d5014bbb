import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { BuiltinEmbedder } from "../../src/embeddings/builtin.ts";
import type { Embedder } from "../../src/embeddings/embedder.ts";
import { FakeQdrant } from "../support/fake-qdrant.ts";
import { HttpClient } from "../support/http.ts";
import { databaseUnavailable, serverWithUser, startTestServer, type TestServer } from "../support/server.ts";
import { replacing } from "../support/wrap-index.ts";

const APP = "https://app.example.com";
const METRICS_TOKEN = "metrics-token-for-tests-0123456789";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus' text exposition format, sample lines only. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` that carry every label given. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0);
}

async function scrape(client: HttpClient, token?: string): Promise<Sample[]> {
  const res = await client.get("/metrics", token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.text);
}

/** Runs `work` between two scrapes; the function returned tells how much a metric grew meanwhile. */
async function growthDuring(
  client: HttpClient,
  work: () => Promise<void>,
  token?: string,
): Promise<(name: string, labels?: Record<string, string>) => number> {
  const before = await scrape(client, token);
  await work();
  const after = await scrape(client, token);
  return (name, labels = {}) => total(after, name, labels) - total(before, name, labels);
}

const corsHeaderNames = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith("access-control-"));

describe.skipIf(databaseUnavailable())("operations endpoints", () => {
  const suite = serverWithUser({
      CORS_ORIGINS: `${APP}, https://admin.example.com`,
      HSTS_MAX_AGE_SECONDS: "31536000",
    });
  let anonymous: HttpClient;

  beforeAll(async () => {
    anonymous = suite.server.client();
  });

  describe("/readyz", () => {
    it("answers 200 with the time of each check, without a key", async () => {
      const res = await anonymous.get("/readyz");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: "ready",
        checks: {
          database: { ok: true, ms: expect.any(Number) },
          vectorIndex: { ok: true, ms: expect.any(Number), kind: suite.server.app.services.index.kind },
        },
      });
    });

    it("answers 503 naming the vector index when its ping fails, and gives up on a hung ping after the timeout", async () => {
      const ping = { mode: "ok" as "ok" | "fail" | "hang" };
      const wrapIndex = replacing((inner) => ({
        ping: () =>
          ping.mode === "fail" ? Promise.reject(new Error("index unreachable")) : ping.mode === "hang" ? new Promise(() => {}) : inner.ping(),
      }));
      const flaky = await startTestServer({ READINESS_TIMEOUT_MS: "300" }, { wrapIndex });
      try {
        const client = flaky.client();
        // ready once a probe answers within the 300 ms (under a loaded machine's full suite, the first may not)
        let ready = await client.get("/readyz");
        for (let tries = 0; ready.status !== 200 && tries < 50; tries++) ready = await client.get("/readyz");
        expect(ready.status, ready.text).toBe(200);

        ping.mode = "fail";
        const failed = await client.get("/readyz");
        expect(failed.status).toBe(503);
        expect(failed.body.status).toBe("unavailable");
        expect(failed.body.checks.database.ok).toBe(true);
        expect(failed.body.checks.vectorIndex).toMatchObject({ ok: false, error: "failed" });
        // the cause stays in the log: the probe is public
        expect(failed.text).not.toContain("index unreachable");

        // the probe answers although the index never does (when, to the millisecond: test/unit/readiness.test.ts)
        ping.mode = "hang";
        const hung = await client.get("/readyz");
        expect(hung.status).toBe(503);
        expect(hung.body.checks.vectorIndex).toMatchObject({ ok: false, error: "no answer within 300 ms", ms: expect.any(Number) });
      } finally {
        await flaky.close();
      }
    });

    it("answers 503 naming the embedder while it loads its model, and 200 once it has", async () => {
      let loaded!: () => void;
      const loading = new Promise<void>((resolve) => (loaded = resolve));
      const hashed = new BuiltinEmbedder();
      const embedder: Embedder = { id: hashed.id, dimensions: hashed.dimensions, deferWrites: false, embed: (texts) => hashed.embed(texts), ready: () => loading };
      const starting = await startTestServer({ READINESS_TIMEOUT_MS: "300" }, { embedder });
      try {
        const client = starting.client();
        expect((await client.get("/healthz")).status).toBe(200);
        const waiting = await client.get("/readyz");
        expect(waiting.status).toBe(503);
        expect(waiting.body.checks.embedder).toMatchObject({ ok: false, error: "no answer within 300 ms" });
        loaded();
        const ready = await client.get("/readyz");
        expect(ready.status).toBe(200);
        expect(ready.body.checks.embedder).toEqual({ ok: true, ms: expect.any(Number) });
      } finally {
        await starting.close();
      }
    });

    it("answers 503 naming the database once the database is closed; /healthz still answers", async () => {
      const doomed = await startTestServer();
      const { db } = doomed.app;
      const close = db.close.bind(db);
      let closing: Promise<void> | undefined;
      db.close = () => (closing ??= close()); // closed here, and again by the app's own shutdown
      try {
        await db.close();
        const res = await doomed.client().get("/readyz");
        expect(res.status).toBe(503);
        expect(res.body.checks.database).toMatchObject({ ok: false, error: "failed" });
        expect((await doomed.client().get("/healthz")).status).toBe(200);
      } finally {
        await doomed.close();
      }
    });

    it("answers 503 while the server drains", async () => {
      const draining = await startTestServer({ SHUTDOWN_TIMEOUT_MS: "5000" });
      const { port } = new URL(draining.url);
      const open = () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(port), "127.0.0.1", () => resolve(socket)).once("error", reject);
        });
      const { key } = await draining.newUser();
      const held = await open();
      const probe = await open();
      try {
        // a request in flight (its body never ends) keeps the drain going; the probe's, begun, is not idle either
        held.write(`POST /api/v1/memory HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n`);
        held.write("Content-Length: 100\r\n\r\n{");
        probe.write("GET /readyz HTTP/1.1\r\nHost: x\r\n");
        await new Promise((resolve) => setTimeout(resolve, 100));
        const drained = draining.app.http.drain(5000, 0);
        const answer = new Promise<string>((resolve) => {
          let text = "";
          probe.on("data", (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes("\r\n\r\n") && text.endsWith("}")) resolve(text);
          });
        });
        probe.write("\r\n");
        const text = await answer;
        expect(text).toMatch(/^HTTP\/1\.1 503 /);
        expect(text).toContain('{"status":"draining"}');
        held.destroy();
        await drained;
      } finally {
        held.destroy();
        probe.destroy();
        await draining.close();
      }
    });

    it.each([
      [1000, "answers a request sent on an idle keep-alive connection just after the signal, with Connection: close"],
      [0, "without the grace, closes an idle keep-alive connection at once (a request sent on it meets a closed socket)"],
    ])("grace %i ms: %s", async (grace, _what) => {
      const server = await startTestServer();
      const socket = await new Promise<Socket>((resolve, reject) => {
        const opened = connect(Number(new URL(server.url).port), "127.0.0.1", () => resolve(opened)).once("error", reject);
      });
      const received: string[] = [];
      const ended = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.on("data", (chunk: Buffer) => received.push(chunk.toString())).on("error", () => {});
      const answered = (count: number) =>
        new Promise<void>((resolve) => {
          const check = () => ((received.join("").match(/HTTP\/1\.1 /g) ?? []).length >= count ? resolve() : setTimeout(check, 5));
          check();
        });
      try {
        socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        await answered(1); // the connection is idle now, kept alive
        const drained = server.app.http.drain(5000, grace);
        await new Promise((resolve) => setTimeout(resolve, 20));
        socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        await Promise.race([answered(2), ended]);
        const second = received.join("").split("HTTP/1.1 ")[2];
        if (grace > 0) expect(second).toMatch(/^200 [^]*connection: close/i);
        else expect(second).toBeUndefined();
        await drained;
        await ended;
      } finally {
        socket.destroy();
        await server.close();
      }
    });
  });

  it("answers 405 with Allow: GET, HEAD to any other method on /healthz, /readyz, /metrics and /docs/migration", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics", "/docs/migration"]) {
      for (const method of ["POST", "DELETE", "PUT"]) {
        const res = await anonymous.request(method, path);
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get("allow")).toBe("GET, HEAD");
        expect(res.body.error.code).toBe("METHOD_NOT_ALLOWED");
      }
      expect((await anonymous.request("HEAD", path)).status, `HEAD ${path}`).toBe(200);
    }
  });

  describe("/metrics", () => {
    it("counts a REST request under its route pattern, never its raw path, after it is made", async () => {
      const created = await suite.user.api.post("/api/v1/memory", { content: "metrics: the kettle is in the left cupboard" });
      expect(created.status).toBe(201);
      const growth = await growthDuring(anonymous, async () => {
        expect((await suite.user.api.get(`/api/v1/memories/${created.body.id}`)).status).toBe(200);
        expect((await anonymous.get("/no/such/path")).status).toBe(404);
      });

      const route = { method: "GET", route: "/api/v1/memories/:id" };
      expect(growth("http_requests_total", { ...route, status: "200" })).toBe(1);
      expect(growth("http_request_duration_seconds_count", route)).toBe(1);
      expect(growth("http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
      const samples = await scrape(anonymous);
      const routes = samples.filter((s) => s.name === "http_requests_total").map((s) => s.labels.route ?? "");
      expect(routes.filter((r) => r.includes(created.body.id) || r.startsWith("/no/"))).toEqual([]);
    });

    it("counts GraphQL operations by name and type, anonymous ones as anonymous", async () => {
      const growth = await growthDuring(anonymous, async () => {
        expect((await suite.user.api.graphql("query WhoAmI { me { id } }")).status).toBe(200);
        expect((await suite.user.api.graphql("query WhoAmI { me { id } }")).status).toBe(200);
        expect((await suite.user.api.graphql("{ me { id } }")).status).toBe(200);
      });

      expect(growth("graphql_operations_total", { operation: "WhoAmI", type: "query" })).toBe(2);
      expect(growth("graphql_operations_total", { operation: "anonymous", type: "query" })).toBe(1);
      expect(growth("graphql_operation_duration_seconds_count", { operation: "WhoAmI", type: "query" })).toBe(2);
      expect(growth("http_requests_total", { method: "POST", route: "/graphql", status: "200" })).toBe(3);
    });

    it("counts an operation whose name is too long as \"other\", and never shows the name", async () => {
      const long = `Q${"x".repeat(100)}`;
      const growth = await growthDuring(anonymous, async () => {
        expect((await suite.user.api.graphql(`query ${long} { me { id } }`)).status).toBe(200);
      });
      expect(growth("graphql_operations_total", { operation: "other", type: "query" })).toBe(1);
      expect((await scrape(anonymous)).some((sample) => sample.labels.operation === long)).toBe(false);
    });

    it("times the embedder and the vector index's writes and searches", async () => {
      const { embedder, index } = suite.server.app.services;
      const growth = await growthDuring(anonymous, async () => {
        expect((await suite.user.api.post("/api/v1/memory", { content: "metrics: the spare tyre is flat" })).status).toBe(201);
        expect((await suite.user.api.get("/api/v1/memory/search?query=tyre")).status).toBe(200);
      });

      // one batch for the memory written, one for the query
      expect(growth("embedder_duration_seconds_count", { embedder: embedder.id, outcome: "ok" })).toBe(2);
      for (const operation of ["upsert", "search"]) {
        const labels = { index: index.kind, operation, outcome: "ok" };
        expect(growth("vector_index_operation_duration_seconds_count", labels), operation).toBe(1);
      }
    });

    it("exposes the process's default metrics", async () => {
      const samples = await scrape(anonymous);
      expect(total(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
      expect(samples.some((s) => s.name === "nodejs_heap_size_used_bytes")).toBe(true);
    });
  });

  describe("CORS", () => {
    const preflight = (path: string, origin: string, method = "POST") =>
      anonymous.request("OPTIONS", path, {
        headers: {
          origin,
          "access-control-request-method": method,
          "access-control-request-headers": "authorization, content-type, idempotency-key",
        },
      });

    it("answers a preflight from an allowed origin with 204, on REST routes and /graphql, without a key", async () => {
      for (const [path, method] of [
        ["/graphql", "POST"],
        ["/api/v1/memories/00000000-0000-4000-8000-000000000000", "DELETE"],
        ["/api/v1/memory", "POST"],
      ] as const) {
        const res = await preflight(path, APP, method);
        expect(res.status, path).toBe(204);
        expect(res.headers.get("access-control-allow-origin")).toBe(APP);
        expect(res.headers.get("access-control-allow-methods")).toContain(method);
        const allowed = res.headers.get("access-control-allow-headers")?.toLowerCase().split(/,\s*/);
        expect(allowed).toEqual(
          expect.arrayContaining(["authorization", "content-type", "idempotency-key", "x-request-id", "x-service-api-key"]),
        );
        expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
        expect(res.headers.get("vary")).toBe("Origin");
        expect(res.text).toBe("");
      }
    });

    it("gives a disallowed origin no CORS headers, on preflights and requests alike, and still serves the request", async () => {
      const pre = await preflight("/graphql", "https://evil.example");
      expect(pre.status).toBe(204);
      expect(corsHeaderNames(pre.headers)).toEqual([]);
      expect(pre.headers.get("vary")).toBe("Origin");

      for (const res of [
        await suite.user.api.get("/api/v1/memory", { headers: { origin: "https://evil.example" } }),
        await suite.user.api.graphql("{ me { id } }", undefined, { headers: { origin: "https://evil.example" } }),
      ]) {
        expect(res.status).toBe(200);
        expect(corsHeaderNames(res.headers)).toEqual([]);
        expect(res.headers.get("vary")?.split(/,\s*/)).toContain("Origin");
      }
    });

    it("lets an allowed origin read the answer and its rate-limit, request-id and deprecation headers, errors included", async () => {
      for (const res of [
        await suite.user.api.get("/api/v1/memory", { headers: { origin: APP } }),
        await suite.user.api.graphql("{ me { id } }", undefined, { headers: { origin: APP } }),
        await suite.user.api.get("/api/v1/memories", { headers: { origin: APP } }),
        await anonymous.get("/api/v1/memory", { headers: { origin: APP } }),
      ]) {
        expect(res.headers.get("access-control-allow-origin")).toBe(APP);
        expect(res.headers.get("access-control-allow-credentials")).toBeNull();
        const exposed = res.headers.get("access-control-expose-headers")?.toLowerCase().split(/,\s*/);
        expect(exposed).toEqual(
          expect.arrayContaining([
            "x-request-id",
            "retry-after",
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
            "idempotent-replayed",
            "deprecation",
            "sunset",
            "link",
            "x-api-warn",
          ]),
        );
      }
      const other = await anonymous.get("/api/v1/memory", { headers: { origin: "https://admin.example.com" } });
      expect(other.headers.get("access-control-allow-origin")).toBe("https://admin.example.com");
    });
  });

  it("takes CORS_ORIGINS as exact origins, or * alone", () => {
    expect(loadConfig({ CORS_ORIGINS: " https://a.example, http://localhost:5173 ," }).corsOrigins).toEqual([
      "https://a.example",
      "http://localhost:5173",
    ]);
    expect(loadConfig({ CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
    expect(loadConfig({}).corsOrigins).toEqual([]);
    // each would never equal what a browser sends in Origin
    const wrongs = ["https://a.example/", "https://a.example/app", "a.example", "https://A.example", "*, https://a.example"];
    for (const wrong of wrongs) {
      expect(() => loadConfig({ CORS_ORIGINS: wrong }), wrong).toThrow(ConfigError);
    }
  });

  describe("security headers", () => {
    it("puts nosniff, no-referrer, DENY, HSTS (when configured) and no-store on every API response", async () => {
      for (const res of [
        await anonymous.get("/healthz"),
        await anonymous.get("/readyz"),
        await anonymous.get("/metrics"),
        await suite.user.api.get("/api/v1/memory"),
        await suite.user.api.graphql("{ me { id } }"),
        await anonymous.get("/api/v1/memory"),
        await anonymous.get("/no/such/path"),
      ]) {
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        expect(res.headers.get("referrer-policy")).toBe("no-referrer");
        expect(res.headers.get("x-frame-options")).toBe("DENY");
        expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
        expect(res.headers.get("cache-control")).toBe("no-store");
      }
    });

    it("leaves the dashboard its own Content-Security-Policy and caching", async () => {
      const res = await anonymous.get("/dashboard/");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
    });
  });

  describe("with METRICS_TOKEN, a small rate limit and CORS for any origin", () => {
    let guarded: TestServer;
    beforeAll(async () => {
      guarded = await startTestServer({
        METRICS_TOKEN,
        RATE_LIMIT_MAX: "2",
        RATE_LIMIT_WINDOW_SECONDS: "60",
        CORS_ORIGINS: "*",
      });
    });
    afterAll(() => guarded?.close());

    it("wants the token on /metrics, as a Bearer token and nothing else", async () => {
      const client = guarded.client();
      const missing = await client.get("/metrics");
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await client.get("/metrics", { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
      expect((await client.get("/metrics", { headers: { "x-service-api-key": METRICS_TOKEN } })).status).toBe(401);
      // an API key is no metrics token
      const someone = await guarded.newUser();
      expect((await someone.api.get("/metrics")).status).toBe(401);
      expect((await scrape(client, METRICS_TOKEN)).length).toBeGreaterThan(0);
    });

    it("counts rate-limit rejections; preflights need no key and count against no limit", async () => {
      const client = guarded.client();
      const limited = await guarded.newUser();
      const growth = await growthDuring(
        client,
        async () => {
          for (let i = 0; i < 5; i++) {
            // even one carrying the key (browsers send none) leaves the count alone
            const pre = await limited.api.request("OPTIONS", "/api/v1/memory", {
              headers: { origin: "https://anywhere.example", "access-control-request-method": "GET" },
            });
            expect(pre.status).toBe(204);
            expect(pre.headers.get("access-control-allow-origin")).toBe("*");
            expect(pre.headers.get("vary")).toBeNull();
          }
          const statuses = [];
          for (let i = 0; i < 4; i++) statuses.push((await limited.api.get("/api/v1/memory")).status);
          expect(statuses).toEqual([200, 200, 429, 429]);
        },
        METRICS_TOKEN,
      );
      expect(growth("rate_limit_rejections_total")).toBe(2);
      expect(growth("http_requests_total", { method: "OPTIONS", route: "preflight", status: "204" })).toBe(5);
    });

    it("sends no Strict-Transport-Security unless configured", async () => {
      expect((await guarded.client().get("/healthz")).headers.get("strict-transport-security")).toBeNull();
    });
  });

  // wrong tokens could be tried without end: they count against the address as bad API keys do
  describe("with METRICS_TOKEN and AUTH_FAILURE_LIMIT_MAX=3", () => {
    let guarded: TestServer;
    beforeAll(async () => {
      guarded = await startTestServer({ METRICS_TOKEN, AUTH_FAILURE_LIMIT_MAX: "3" });
    });
    afterAll(() => guarded?.close());

    // counted as failures, they locked out every client at the address, API keys too (outside probe)
    it("does not count scrapes that send no token (first: the next case locks its address out)", async () => {
      const client = guarded.client();
      for (let i = 0; i < 5; i++) expect((await client.get("/metrics")).status).toBe(401);
      expect((await client.get("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    });

    it("refuses an address that has sent too many wrong tokens, the right one too, until the window ends", async () => {
      const client = guarded.client();
      const wrong = [];
      for (let i = 0; i < 3; i++) wrong.push((await client.get("/metrics", { headers: { authorization: `Bearer guess-${i}` } })).status);
      expect(wrong).toEqual([401, 401, 401]);
      const refused = await client.get("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    });
  });

  describe("with Qdrant, and without CORS_ORIGINS", () => {
    let fake: FakeQdrant;
    let qdrant: TestServer;
    beforeAll(async () => {
      fake = await FakeQdrant.start({ apiKey: "qdrant-key" });
      qdrant = await startTestServer({ QDRANT_URL: fake.url, QDRANT_API_KEY: "qdrant-key" });
    });
    afterAll(async () => {
      await qdrant?.close();
      await fake?.close();
    });

    it("asks the Qdrant server itself on every /readyz, and answers 503 when it fails", async () => {
      const client = qdrant.client();
      const asked = fake.requestsTo("GET", "/collections").length;
      const ok = await client.get("/readyz");
      expect(ok.status).toBe(200);
      expect(ok.body.checks.vectorIndex).toMatchObject({ ok: true, kind: "qdrant" });
      expect(fake.requestsTo("GET", "/collections").length).toBe(asked + 1);
      expect(fake.requestsTo("GET", "/collections").at(-1)?.headers["api-key"]).toBe("qdrant-key");

      fake.failNext(1, 503);
      const failed = await client.get("/readyz");
      expect(failed.status).toBe(503);
      expect(failed.body.checks).toMatchObject({ database: { ok: true }, vectorIndex: { ok: false, kind: "qdrant" } });
      expect(failed.text).not.toContain(fake.url);
      expect((await client.get("/readyz")).status).toBe(200);
    });

    it("answers a search 503 SERVICE_UNAVAILABLE while Qdrant fails, naming nothing of it", async () => {
      const { api } = await qdrant.newUser();
      fake.failNext(1_000, 503);
      try {
        const res = await api.get("/api/v1/memory/search?query=tea");
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
        expect(res.text).not.toContain(fake.url);
        expect(res.text).not.toMatch(/qdrant/i);
      } finally {
        fake.failNext(0);
      }
      expect((await api.get("/api/v1/memory/search?query=tea")).status).toBe(200);
    });

    it("sends no CORS headers at all, not even from /graphql, and answers preflights 204 without them", async () => {
      const someone = await qdrant.newUser();
      const gql = await someone.api.graphql("{ me { id } }", undefined, { headers: { origin: APP } });
      expect(gql.status).toBe(200);
      expect(corsHeaderNames(gql.headers)).toEqual([]);
      const pre = await qdrant.client().request("OPTIONS", "/graphql", {
        headers: { origin: APP, "access-control-request-method": "POST" },
      });
      expect(pre.status).toBe(204);
      expect(corsHeaderNames(pre.headers)).toEqual([]);
      expect(pre.headers.get("vary")).toBeNull();
    });
  });
});
