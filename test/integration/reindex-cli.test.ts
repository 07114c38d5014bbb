import { describe, expect, it } from "vitest";
import { runCli, serverProcess } from "../support/child-processes.ts";
import { databaseUnavailable, suiteDatabase } from "../support/server.ts";

const search = async (url: string, key: string, query: string) =>
  (await (
    await fetch(`${url}/api/v1/memory/search?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${key}` } })
  ).json()) as { results: { content: string; score: number }[] };

// The operator's way from the hashed embedder to the sentence encoder (the default) in one go, and back
describe.skipIf(databaseUnavailable())("npm run reindex across a change of embedder", () => {
  const database = suiteDatabase();

  // four processes one after the other (two through npm and tsx), two of them loading the sentence encoder: about
  // 15 s on a quiet 2-core machine, over 30 s on a loaded one
  it("embeds every memory anew with the configured embedder, with progress, and search finds by meaning after", { timeout: 120_000 }, async () => {
    const created = await runCli("keys", ["create", "--user", "r@x", "--name", "t", "--json"], database.env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const hashed = await serverProcess({ ...database.env, EMBEDDER: "hash" });
    try {
      for (const content of ["I adopted a golden retriever named Biscuit", "I drive a red Toyota Corolla", "My sister lives in Lisbon"]) {
        const res = await fetch(`${hashed.url}/api/v1/memory`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ content }),
        });
        expect(res.status).toBe(201);
      }
    } finally {
      hashed.child.kill("SIGTERM");
      await hashed.exited;
    }

    const reindexed = await runCli("reindex", [], { ...database.env, EMBEDDER: "use" });
    expect(reindexed.code, reindexed.stderr).toBe(0);
    expect(reindexed.stderr).toContain("100% 3/3 memories, 3 embedded");
    expect(reindexed.stdout).toMatch(/Reindexed 3 memories \(3 embedded anew\)/);

    const server = await serverProcess({ ...database.env, EMBEDDER: "use" });
    try {
      expect(server.log.join("\n")).not.toContain("memories without a vector of this embedder");
      const found = await search(server.url, key, "what kind of dog do I have?");
      expect(found.results[0]?.content).toBe("I adopted a golden retriever named Biscuit");
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });
});
