import { describe, expect, it } from "vitest";
import { npmRun, startServerProcess } from "../../scripts/lib/server-process.ts";
import { databaseUnavailable, suiteDatabase } from "../support/server.ts";

describe.skipIf(databaseUnavailable())("graceful shutdown", () => {
  const database = suiteDatabase();

  it("on SIGTERM finishes the requests in flight and loses no acknowledged write", async () => {
    const created = await npmRun("keys", ["create", "--user", "writer@x", "--name", "load", "--json"], database.env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    const server = await startServerProcess(database.env);
    const acknowledged = new Set<string>();
    let refused = 0;
    const worker = async (w: number) => {
      for (let n = 0; n < 10_000; n++) {
        try {
          const res = await fetch(`${server.url}/api/v1/memory`, {
            method: "POST",
            headers,
            body: JSON.stringify({ content: `worker ${w} write ${n}` }),
          });
          if (res.status === 201) acknowledged.add(((await res.json()) as { id: string }).id);
          else await res.arrayBuffer();
        } catch {
          refused++;
          return; // the server is gone or going: stop
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await load;
    expect(acknowledged.size).toBeGreaterThan(20);
    expect(refused).toBe(8);
    expect(server.log.join("\n")).toContain("shutting down");

    const again = await startServerProcess(database.env);
    try {
      const stored = new Set<string>();
      for (let offset = 0; ; offset += 100) {
        const res = await fetch(`${again.url}/api/v1/memory?limit=100&offset=${offset}`, { headers });
        const page = (await res.json()) as { memories: { id: string }[]; has_more: boolean };
        page.memories.forEach((m) => stored.add(m.id));
        if (!page.has_more) break;
      }
      const lost = [...acknowledged].filter((id) => !stored.has(id));
      expect(lost).toEqual([]);
    } finally {
      again.child.kill("SIGTERM");
      await again.exited;
    }
  });
});
