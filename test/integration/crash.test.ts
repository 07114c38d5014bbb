import { afterAll, describe, expect, it } from "vitest";
import { runCli, serverProcess, type ServerProcess } from "../support/child-processes.ts";
import { databaseUnavailable, suiteDatabase } from "../support/server.ts";

const WRITERS = 16;

describe.skipIf(databaseUnavailable())("kill -9 during concurrent single creates", () => {
  const database = suiteDatabase();
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await server?.exited;
  });

  it("keeps every memory it acknowledged, over REST and GraphQL, across the restart", async () => {
    const env = { ...database.env, EMBEDDER: "hash", LOG_LEVEL: "warn" };
    const created = await runCli("keys", ["create", "--user", "crash@x", "--name", "t", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    server = await serverProcess(env);
    const { url } = server;
    const acknowledged: string[] = [];
    let killed = false;
    let cutOff = 0;
    /** One client writing until the server dies under it; an id counts once its 2xx answer has arrived. */
    const writer = async (n: number) => {
      for (let i = 0; !killed; i++) {
        const content = `writer ${n} turn ${i}: the user mentioned something worth remembering`;
        try {
          if (n % 2 === 0) {
            const res = await fetch(`${url}/api/v1/memory`, { method: "POST", headers, body: JSON.stringify({ content }) });
            if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
          } else {
            const query = "mutation($content: String!) { createMemory(input: { content: $content }) { id } }";
            const res = await fetch(`${url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables: { content } }) });
            const body = (await res.json()) as { data?: { createMemory: { id: string } } };
            if (body.data) acknowledged.push(body.data.createMemory.id);
          }
        } catch {
          cutOff++; // the request died with the server
          return;
        }
      }
    };
    const writing = Array.from({ length: WRITERS }, (_, n) => writer(n));
    // kill once enough writes are through, while every writer has one in flight
    while (acknowledged.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill("SIGKILL");
    killed = true;
    await server.exited;
    await Promise.all(writing);

    server = await serverProcess(env);
    const missing: string[] = [];
    for (const id of acknowledged) {
      const res = await fetch(`${server.url}/api/v1/memories/${id}`, { headers });
      if (res.status !== 200) missing.push(`${id}: ${res.status}`);
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);
    expect(cutOff).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });
});
