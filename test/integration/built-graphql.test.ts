import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../../scripts/lib/server-process.ts";
import { runCli, serverProcess, type ServerProcess } from "../support/child-processes.ts";
import { databaseUnavailable, suiteDatabase } from "../support/server.ts";

// The other GraphQL tests run the sources in process, where Node.js loads one graphql-js; `npm start` runs the bundle,
// which held two (an ES module and a CommonJS copy): its GraphQLErrors failed instanceof, and each syntax error
// answered 500 INTERNAL.
describe.skipIf(databaseUnavailable())("GraphQL's errors in the build npm start runs", () => {
  const database = suiteDatabase();
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    const created = await runCli("keys", ["create", "--user", "built@x", "--name", "built", "--json"], database.env);
    expect(created.code, created.stderr).toBe(0);
    key = JSON.parse(created.stdout).key;
    server = await serverProcess({ ...database.env, EMBEDDER: "hash" });
  });
  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
  });

  it("bundles graphql-js once: only its ES modules", () => {
    const dist = join(root, "dist", "server");
    const modules = readdirSync(dist)
      .filter((name) => name.endsWith(".mjs"))
      .flatMap((name) => readFileSync(join(dist, name), "utf8").match(/^\/\/ node_modules\/graphql\/\S+$/gm) ?? []);
    expect(modules.length).toBeGreaterThan(0);
    expect(modules.filter((path) => !path.endsWith(".mjs"))).toEqual([]);
  });

  it.each([
    ["POST", { query: "{" }],
    ["POST", { query: "query { me { id } } }" }],
    ["POST", { query: "subscription { memoryEvents { memoryId " }],
    ["GET", { query: "{ me { id " }],
  ])("answers a syntax error (%s %j) 400 VALIDATION_ERROR, not 500", async (method, params) => {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json" };
    const res =
      method === "GET"
        ? await fetch(`${server.url}/graphql?${new URLSearchParams(params)}`, { headers })
        : await fetch(`${server.url}/graphql`, { method, headers, body: JSON.stringify(params) });
    const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.errors[0]).toMatchObject({ message: expect.stringMatching(/^Syntax Error/), extensions: { code: "VALIDATION_ERROR" } });
  });
});
