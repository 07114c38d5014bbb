import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { listenWhileStarting } from "../../src/http/starting-server.ts";
import { HttpClient } from "../support/http.ts";
import { databaseUnavailable, startTestServer, type TestServer } from "../support/server.ts";

describe.skipIf(databaseUnavailable())("the server npm start listens on while the service starts", () => {
  let server: Server | undefined;
  let app: TestServer | undefined;
  afterEach(async () => {
    if (app) await app.close();
    else if (server) await new Promise((resolve) => server!.close(resolve));
    app = server = undefined;
  });

  async function listening(): Promise<HttpClient> {
    server = await listenWhileStarting(loadConfig({ PORT: "0", HOST: "127.0.0.1", HSTS_MAX_AGE_SECONDS: "600" }));
    return new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  it("is alive at once, not ready, and asks every other request to come back", async () => {
    const client = await listening();
    const health = await client.get("/healthz");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
    expect(health.headers.get("strict-transport-security")).toBe("max-age=600");
    expect(health.headers.get("x-request-id")).toBeTruthy();
    const ready = await client.get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: "starting" });
    for (const [method, path] of [["GET", "/api/v1/memories"], ["POST", "/graphql"], ["POST", "/healthz"]] as const) {
      const res = await client.request(method, path, method === "POST" ? { json: {} } : {});
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      // each in its protocol's form: GraphQL clients (the dashboard) read `errors`
      const refusal = { code: "SERVICE_UNAVAILABLE", message: "The service is starting: try again shortly" };
      if (path === "/graphql") expect(res.body).toEqual({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] });
      else expect(res.body).toEqual({ error: refusal });
    }
  });

  // a legacy client polling through a restart saw a 503 without them (helper-26)
  it("gives the legacy collection's answers their deprecation headers, as the service does", async () => {
    const client = await listening();
    const legacy = await client.get("/api/v1/memories?workspaceId=w");
    expect(legacy.status).toBe(503);
    expect(legacy.headers.get("deprecation")).toBe("true");
    expect(legacy.headers.get("sunset")).toBe("Tue, 30 Jun 2026 23:59:59 GMT");
    expect(legacy.headers.get("link")).toBe('</docs/migration>; rel="deprecation"');
    expect(legacy.headers.get("x-api-warn")).toMatch(/^Deprecated: use \/api\/v1\/memory/);
    expect((await client.get("/api/v1/memory")).headers.get("deprecation")).toBeNull();
  });

  it("hands its port to the service once that is up", async () => {
    const client = await listening();
    const { port } = server!.address() as AddressInfo;
    app = await startTestServer({}, { server: server! });
    expect(app.url).toBe(`http://127.0.0.1:${port}`);
    const ready = await client.get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: "ready" });
    // the service's own answers now: an API route asks for a key
    expect((await client.get("/api/v1/memories")).status).toBe(401);
  });
});
