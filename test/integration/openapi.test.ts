import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { openApiDocument, openApiPath } from "../../src/rest/openapi/document.ts";
import type { Header, Method, OpenApiDocument, Ref, Schema } from "../../src/rest/openapi/types.ts";
import { createRouter } from "../../src/rest/routes/index.ts";
import type { HttpResult } from "../support/http.ts";
import { databaseAgnosticRun, serverWithUser, startTestServer } from "../support/server.ts";

const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

/** Headers the server sets that the document must list wherever they appear. */
const DOCUMENTED_HEADERS = [
  "x-request-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
  "idempotent-replayed",
  "deprecation",
  "sunset",
  "link",
  "x-api-warn",
];

/**
 * Checks real answers against the document: the status is one the operation lists, the body matches its schema,
 * the required headers are there, and every header of ours that is there is listed. This is what keeps the
 * document true as the routes change.
 */
class Conformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly seen = new Set<string>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: "urn:memory-service:openapi", components: { schemas: this.rebased(document.components.schemas) } });
  }

  /** `#/components/...` refs made absolute, so a schema compiled on its own still finds them. */
  private rebased<T>(value: T): T {
    return JSON.parse(JSON.stringify(value).replaceAll('"#/components/', '"urn:memory-service:openapi#/components/')) as T;
  }

  private header(entry: Header | Ref): Header {
    return "$ref" in entry ? this.document.components.headers[entry.$ref.split("/").pop()!]! : entry;
  }

  matches(schema: Schema, value: unknown): string | undefined {
    const validate = this.ajv.compile(this.rebased(schema));
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors);
  }

  check(method: Method, path: string, res: HttpResult): void {
    const where = `${method.toUpperCase()} ${path} answered ${res.status}`;
    const operation = this.document.paths[path]?.[method];
    expect(operation, `${method.toUpperCase()} ${path} is not in the document`).toBeDefined();
    const response = operation!.responses[String(res.status)];
    expect(response, `${where}, which the document does not list (${res.text.slice(0, 200)})`).toBeDefined();
    this.seen.add(`${method} ${path} ${res.status}`);
    const listed = Object.keys(response!.headers ?? {}).map((name) => name.toLowerCase());
    for (const [name, entry] of Object.entries(response!.headers ?? {})) {
      const header = this.header(entry);
      const value = res.headers.get(name);
      if (header.required) expect(value, `${where} without ${name}`).not.toBeNull();
      if (value !== null) expect(this.matches(header.schema, value), `${where}: header ${name}: ${value}`).toBeUndefined();
    }
    for (const name of DOCUMENTED_HEADERS) {
      if (res.headers.has(name)) expect(listed, `${where} with ${name}, which the document does not list there`).toContain(name);
    }
    const type = res.headers.get("content-type")?.split(";")[0] ?? "";
    const media = response!.content?.[type];
    expect(media, `${where} as ${type}, which the document does not list`).toBeDefined();
    if (type === "application/json")
      expect(this.matches(media!.schema, res.body), `${where}: ${res.text.slice(0, 300)}`).toBeUndefined();
  }
}

describe.runIf(databaseAgnosticRun())("API documentation", () => {
  // the webhook route is exercised with a loopback URL, which needs no DNS
  const suite = serverWithUser({ WEBHOOK_ALLOW_PRIVATE: "true" });
  let document: OpenApiDocument;
  let conformance: Conformance;

  beforeAll(async () => {
    const res = await suite.server.client().get("/openapi.json");
    expect(res.status).toBe(200);
    document = res.body as OpenApiDocument;
    conformance = new Conformance(document);
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method]! })),
    );

  describe("/openapi.json", () => {
    it("is a valid OpenAPI 3.1 document, served without a key", async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe("3.1");
      expect(document.openapi).toBe("3.1.0");
    });

    it("has every route of the router, and no REST operation the router lacks", () => {
      const routes = createRouter()
        .list()
        .map(({ method, pattern }) => `${method} ${openApiPath(pattern)}`)
        .sort();
      const documented = operations()
        .filter(({ path }) => path.startsWith("/api/"))
        .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
        .sort();
      expect(documented).toEqual(routes);
      expect(routes).toContain("POST /api/v1/memories");
      expect(routes).toContain("GET /api/v1/memories");
    });

    // the import's example (a record without `kind`) and the batch's (an empty content) broke their own schemas
    it("gives examples that match their schemas, of every request and response body", () => {
      const bodies = operations().flatMap(({ method, path, operation }) => [
        ...Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => ({ where: `${method} ${path} request ${type}`, media })),
        ...Object.entries(operation.responses).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).map(([type, media]) => ({ where: `${method} ${path} ${status} ${type}`, media })),
        ),
      ]);
      const checked = bodies.flatMap(({ where, media }) => [
        ...(media.example === undefined ? [] : [{ where, value: media.example, schema: media.schema }]),
        ...Object.entries(media.examples ?? {}).map(([name, { value }]) => ({ where: `${where} (${name})`, value, schema: media.schema })),
      ]);
      expect(checked.length).toBeGreaterThan(100);
      const failing = checked.flatMap(({ where, value, schema }) => {
        // NDJSON examples are the lines' text; each line is an example of the schema
        const values = typeof value === "string" && where.includes("ndjson") ? value.split("\n").filter(Boolean).map((line) => JSON.parse(line) as unknown) : [value];
        return values.flatMap((one) => {
          const problem = conformance.matches(schema, one);
          return problem ? [`${where}: ${problem}`] : [];
        });
      });
      expect(failing).toEqual([]);
    });

    it("cannot be built while a route lacks its description", () => {
      const router = createRouter().add("GET", "/api/v1/undocumented", async () => ({ status: 200, body: {} }));
      expect(() => openApiDocument(router.list(), suite.server.app.config, "0")).toThrow(
        /GET \/api\/v1\/undocumented has no OpenAPI description/,
      );
    });

    it("marks exactly the deprecated routes deprecated, with the four headers on every answer", () => {
      for (const route of createRouter().list()) {
        const operation = document.paths[openApiPath(route.pattern)]![route.method.toLowerCase() as Method]!;
        expect(operation.deprecated ?? false, `${route.method} ${route.pattern}`).toBe(route.deprecated);
        if (!route.deprecation) continue;
        for (const [status, response] of Object.entries(operation.responses)) {
          const headers = response.headers as Record<string, Header>;
          expect(Object.keys(headers), `${route.method} ${route.pattern} ${status}`).toEqual(
            expect.arrayContaining(["Deprecation", "Sunset", "Link", "X-API-Warn"]),
          );
          expect(headers.Sunset!.schema.const).toBe(route.deprecation.sunset.toUTCString());
        }
        expect(operation.responses["410"]).toBeDefined();
      }
    });

    it("documents security, the error body and the headers of every authenticated operation", () => {
      expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
      expect(document.components.securitySchemes.apiKeyHeader).toMatchObject({
        type: "apiKey",
        in: "header",
        name: "x-service-api-key",
      });
      for (const { method, path, operation } of operations().filter(({ path }) => path.startsWith("/api/"))) {
        const where = `${method} ${path}`;
        expect(operation.security, where).toBeUndefined(); // the document's default: a key
        expect(Object.keys(operation.responses), where).toEqual(expect.arrayContaining(["400", "401", "429", "500"]));
        expect(Object.keys(operation.responses["429"]!.headers!), where).toContain("Retry-After");
        const success = Object.entries(operation.responses).find(([status]) => status.startsWith("2"))![1];
        expect(Object.keys(success.headers!), where).toEqual(
          expect.arrayContaining(["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]),
        );
        // the POSTs that write take one; those that only read (search, recall) and the streamed import do not
        const idempotencyKey = (operation.parameters ?? []).some((p) => "$ref" in p && p.$ref.endsWith("/Idempotency-Key"));
        const replayable = method === "post" && !/\/(search|recall)$|^\/api\/v1\/import$/.test(path);
        expect(idempotencyKey, where).toBe(replayable);
        expect(Object.keys(operation.responses).includes("409"), where).toBe(replayable);
      }
      const batch = document.paths["/api/v1/memory/batch"]!.post!.requestBody!.content["application/json"]!.schema;
      expect(batch.$ref).toBe("#/components/schemas/BatchRequest");
      const shapes = document.components.schemas.BatchRequest!.oneOf!;
      expect(conformance.matches(shapes[0]!, [{ content: "a" }])).toBeUndefined();
      expect(conformance.matches(shapes[1]!, { memories: [{ content: "a" }] })).toBeUndefined();
      // and the check this file relies on does catch a body the document does not allow
      expect(conformance.matches(shapes[1]!, { memories: [{ content: "a", kind: "task" }] })).toBeDefined();
      expect(conformance.matches({ $ref: "#/components/schemas/Memory" }, { id: "not-a-uuid" })).toBeDefined();
    });

    it("refuses other methods", async () => {
      const res = await suite.server.client().post("/openapi.json", {});
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD");
    });
  });

  describe("the document is true: real answers conform to it", () => {
    it("every REST route, on success", async () => {
      const api = suite.user.api;
      const check = (method: Method, path: string, res: HttpResult) => conformance.check(method, path, res);

      const thread = await api.post("/api/v1/threads", { title: "Trip to Porto", description: "Planning", metadata: { a: 1 } });
      check("post", "/api/v1/threads", thread);
      const text = await api.post("/api/v1/memory", {
        content: "I prefer tea to coffee",
        type: "preference",
        tags: ["drinks"],
        thread_id: thread.body.id,
      });
      check("post", "/api/v1/memory", text);
      check(
        "post",
        "/api/v1/memory",
        await api.post("/api/v1/memory", { content: "I prefer tea to coffee", type: "preference", thread_id: thread.body.id, dedupe: true }),
      );
      check(
        "post",
        "/api/v1/memory",
        await api.post("/api/v1/memory", { content: { drink: "tea" }, metadata: { source: "test" } }),
      );
      const id = text.body.id as string;
      check("get", "/api/v1/memory", await api.get("/api/v1/memory?limit=5&tags=drinks&is_archived=false"));
      check("get", "/api/v1/memories/{id}", await api.get(`/api/v1/memories/${id}`));
      check(
        "patch",
        "/api/v1/memories/{id}",
        await api.patch(`/api/v1/memories/${id}`, { tags: ["drinks", "morning"], type: null }),
      );
      check(
        "put",
        "/api/v1/memories/{id}",
        await api.put(`/api/v1/memories/${id}`, { content: "I prefer green tea", thread_id: thread.body.id }),
      );
      check("get", "/api/v1/memory/search", await api.get("/api/v1/memory/search?query=green%20tea&limit=3"));
      check("post", "/api/v1/memory/search", await api.post("/api/v1/memory/search", { query: "green tea", filter: { type: "preference" } }));
      check(
        "post",
        "/api/v1/memory/recall",
        await api.post("/api/v1/memory/recall", { query: "What does the user like to drink?" }),
      );
      check("get", "/api/v1/memory/recall", await api.get(`/api/v1/memory/recall?query=tea&thread_id=${thread.body.id}`));
      check(
        "post",
        "/api/v1/memory/batch",
        await api.post("/api/v1/memory/batch", [{ content: "one" }, { content: "two", tags: ["x"] }]),
      );
      check(
        "post",
        "/api/v1/memory/batch",
        await api.post("/api/v1/memory/batch", { memories: [{ content: "three" }, { content: "" }] }),
      );
      check(
        "post",
        "/api/v1/memory/batch",
        await api.post("/api/v1/memory/batch", { memories: [{ content: "three" }, { content: "four", dedupe: false }], dedupe: true }),
      );
      check("get", "/api/v1/threads", await api.get("/api/v1/threads?status=active"));
      check("get", "/api/v1/threads/{id}", await api.get(`/api/v1/threads/${thread.body.id}?include_memories=true&limit=5`));
      check(
        "patch",
        "/api/v1/threads/{id}",
        await api.patch(`/api/v1/threads/${thread.body.id}`, { status: "completed", description: null }),
      );
      check("delete", "/api/v1/threads/{id}", await api.delete(`/api/v1/threads/${thread.body.id}`));
      check("delete", "/api/v1/memories/{id}", await api.delete(`/api/v1/memories/${id}`));
      check("get", "/api/v1/memories/{id}/history", await api.get(`/api/v1/memories/${id}/history`));
      check(
        "post",
        "/api/v1/memories",
        await api.post("/api/v1/memories", {
          workspaceId: "ws_1",
          userId: "u_1",
          content: "legacy",
          kind: "task",
          ttlMinutes: 5,
        }),
      );
      check("get", "/api/v1/memories", await api.get("/api/v1/memories?workspaceId=ws_1"));
      const hook = await api.post("/api/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["memory.created"] });
      check("post", "/api/v1/webhooks", hook);
      check("get", "/api/v1/webhooks", await api.get("/api/v1/webhooks"));
      check("get", "/api/v1/webhooks/{id}/deliveries", await api.get(`/api/v1/webhooks/${hook.body.id}/deliveries`));
      check("post", "/api/v1/webhooks/{id}/enable", await api.post(`/api/v1/webhooks/${hook.body.id}/enable`));
      check("post", "/api/v1/webhooks/{id}/rotate-secret", await api.post(`/api/v1/webhooks/${hook.body.id}/rotate-secret`));
      check("delete", "/api/v1/webhooks/{id}", await api.delete(`/api/v1/webhooks/${hook.body.id}`));
      const exported = await api.get("/api/v1/export?history=true&embeddings=true");
      check("get", "/api/v1/export", exported);
      const lines = exported.text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as unknown);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(conformance.matches({ $ref: "#/components/schemas/ExportLine" }, line)).toBeUndefined();
      check(
        "post",
        "/api/v1/import",
        await api.post("/api/v1/import", undefined, { raw: exported.text, headers: { "content-type": "application/x-ndjson" } }),
      );

      const uncovered = createRouter()
        .list()
        .filter(
          ({ method, pattern }) =>
            ![...conformance.seen].some((seen) => seen.startsWith(`${method.toLowerCase()} ${openApiPath(pattern)} 2`)),
        );
      expect(uncovered).toEqual([]);
    });

    it("errors: 400, 401, 404, 409, 413, 415, and an idempotent replay", async () => {
      const api = suite.user.api;
      const anonymous = suite.server.client();
      const check = (method: Method, path: string, res: HttpResult) => conformance.check(method, path, res);
      const json = { "content-type": "application/json" };

      check("get", "/api/v1/memory", await anonymous.get("/api/v1/memory"));
      check("post", "/api/v1/memories", await anonymous.post("/api/v1/memories", { workspaceId: "ws", content: "x" }));
      check("get", "/api/v1/memory", await api.get("/api/v1/memory?page=2"));
      check("get", "/api/v1/memories", await api.get("/api/v1/memories"));
      check("post", "/api/v1/memory", await api.request("POST", "/api/v1/memory", { raw: "{", headers: json }));
      check(
        "post",
        "/api/v1/memory",
        await api.request("POST", "/api/v1/memory", { raw: "content=x", headers: { "content-type": "text/plain" } }),
      );
      check(
        "put",
        "/api/v1/memories/{id}",
        await api.put("/api/v1/memories/00000000-0000-4000-8000-000000000000", { content: "x" }),
      );
      check("get", "/api/v1/threads/{id}", await api.get("/api/v1/threads/not-an-id"));
      check("post", "/api/v1/memory/batch", await api.post("/api/v1/memory/batch", []));
      const big = JSON.stringify({ content: "x".repeat(suite.server.app.config.limits.maxBodyBytes) });
      check("post", "/api/v1/memory", await api.request("POST", "/api/v1/memory", { raw: big, headers: json }));

      const key = { "idempotency-key": `openapi-${Date.now()}` };
      check("post", "/api/v1/memory", await api.post("/api/v1/memory", { content: "once" }, { headers: key }));
      const replay = await api.post("/api/v1/memory", { content: "once" }, { headers: key });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      check("post", "/api/v1/memory", replay);
      check("post", "/api/v1/memory", await api.post("/api/v1/memory", { content: "other" }, { headers: key }));
      check("post", "/api/v1/memory", await api.post("/api/v1/memory", { content: "x" }, { headers: { "idempotency-key": "" } }));
    });

    it("429 with Retry-After, and 410 on the legacy routes once their sunset is enforced", async () => {
      const afterSunset = () => new Date("2026-07-01T00:00:00Z");
      const strict = await startTestServer({ RATE_LIMIT_MAX: "1", LEGACY_SUNSET_ENFORCE: "true" }, { now: afterSunset });
      try {
        const { api } = await strict.newUser();
        const strictDocument = (await strict.client().get("/openapi.json")).body as OpenApiDocument;
        const strictConformance = new Conformance(strictDocument);
        strictConformance.check("get", "/api/v1/memory", await api.get("/api/v1/memory"));
        const limited = await api.get("/api/v1/memory");
        expect(limited.status).toBe(429);
        strictConformance.check("get", "/api/v1/memory", limited);
        const gone = await api.get("/api/v1/memories?workspaceId=ws");
        expect(gone.status).toBe(410);
        strictConformance.check("get", "/api/v1/memories", gone);
      } finally {
        await strict.close();
      }
    });

    it("the paths the HTTP layer answers itself", async () => {
      const anonymous = suite.server.client();
      const check = (method: Method, path: string, res: HttpResult) => conformance.check(method, path, res);
      for (const path of ["/healthz", "/readyz", "/metrics", "/openapi.json", "/docs", "/docs/migration", "/dashboard/"]) {
        check("get", path, await anonymous.get(path));
      }
      check("get", "/graphql", await anonymous.get("/graphql", { headers: { accept: "text/html" } }));
      check("get", "/graphql", await suite.user.api.get(`/graphql?query=${encodeURIComponent("{ me { id } }")}`));
      check("post", "/graphql", await suite.user.api.graphql("query { me { id } }"));
      check("post", "/graphql", await suite.user.api.graphql("query { nope }"));
      check("post", "/graphql", await anonymous.graphql("query { me { id } }"));
      const documented = operations()
        .filter(({ path }) => !path.startsWith("/api/"))
        .map(({ method, path }) => `${method} ${path}`);
      expect(documented.filter((op) => ![...conformance.seen].some((seen) => seen.startsWith(`${op} 2`)))).toEqual([]);
    });
  });

  describe("/docs", () => {
    it("is the reference page: its two scripts from this server, under a policy that runs no other, pointed at /openapi.json", async () => {
      const res = await suite.server.client().get("/docs");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const policy = res.headers.get("content-security-policy")!.split("; ");
      expect(policy).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "connect-src 'self'"]));
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
      const scripts = [...res.text.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
      expect(scripts).toHaveLength(2);
      expect(scripts.filter((url) => !url.startsWith("/docs/assets/"))).toEqual([]);
      const files = await Promise.all(scripts.map((url) => suite.server.client().get(url)));
      for (const file of files) {
        expect(file.status).toBe(200);
        expect(file.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
        expect(file.headers.get("cache-control")).toContain("immutable");
      }
      // the page's own script: Scalar would fetch its web fonts and send telemetry elsewhere (the browser test sees
      // nothing leave)
      const start = files[scripts.findIndex((url) => url.startsWith("/docs/assets/start-"))]!.text;
      expect(start).toMatch(/^Scalar\.createApiReference\("#reference", \{"url":"\/openapi\.json",/);
      expect(start).toContain('"withDefaultFonts":false');
      expect(start).toContain('"telemetry":false');
      expect((await suite.server.client().get("/docs/assets/nothing-here.js")).status).toBe(404);
    });
  });

  describe("GraphiQL at /graphql", () => {
    it("loads its scripts and styles from this server: no asset comes from a CDN", async () => {
      const res = await suite.server.client().get("/graphql", { headers: { accept: "text/html" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      const assets = [...res.text.matchAll(/<(?:script|link|img)\b[^>]*\b(?:src|href)\s*=\s*["']?([^"'\s>]+)/gi)].map(
        (m) => m[1]!,
      );
      expect(assets.length).toBeGreaterThanOrEqual(4);
      expect(assets.filter((url) => !url.startsWith("/graphiql/"))).toEqual([]);
      const files = await Promise.all(assets.map((url) => suite.server.client().get(url)));
      expect(files.map((file) => file.status)).toEqual(assets.map(() => 200));
      const code = files.map((file) => file.text).join("\n");
      expect(code).toContain("YogaGraphiQL.renderYogaGraphiQL");
      expect(code).toContain("query Recent");
      expect(code).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|fonts\.googleapis/);
      expect(code).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
      expect(code).not.toMatch(/@import\s+(url\()?\s*["']?(https?:)?\/\//i);
    });
  });
});
