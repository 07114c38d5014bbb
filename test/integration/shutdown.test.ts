import { describe, expect, it } from "vitest";
import { runCli, serverProcess } from "../support/child-processes.ts";
import { databaseUnavailable, suiteDatabase } from "../support/server.ts";

const ACKNOWLEDGED_BEFORE_SIGTERM = 20;

describe.skipIf(databaseUnavailable())("graceful shutdown", () => {
  const database = suiteDatabase();

  it("on SIGTERM finishes the requests in flight and loses no acknowledged write", async () => {
    const created = await runCli("keys", ["create", "--user", "writer@x", "--name", "load", "--json"], database.env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout);
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    const server = await serverProcess(database.env);
    const acknowledged = new Set<string>();
    // SIGTERM comes once some writes have been acknowledged, however long a loaded machine takes to get there
    let underWay!: () => void;
    const enoughWritten = new Promise<void>((resolve) => (underWay = resolve));
    let refused = 0;
    const worker = async (w: number) => {
      for (let n = 0; n < 10_000; n++) {
        try {
          const res = await fetch(`${server.url}/api/v1/memory`, {
            method: "POST",
            headers,
            body: JSON.stringify({ content: `worker ${w} write ${n}` }),
          });
          if (res.status === 201) {
            acknowledged.add(((await res.json()) as { id: string }).id);
            if (acknowledged.size > ACKNOWLEDGED_BEFORE_SIGTERM) underWay();
          } else await res.arrayBuffer();
        } catch {
          refused++;
          return; // the server is gone or going: stop
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    await Promise.race([enoughWritten, load]); // the load ends early only if the workers were refused
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await load;
    expect(acknowledged.size).toBeGreaterThan(ACKNOWLEDGED_BEFORE_SIGTERM);
    expect(refused).toBe(8);
    expect(server.log.join("\n")).toContain("shutting down");

    const again = await serverProcess(database.env);
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
