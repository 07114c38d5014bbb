import { beforeAll, describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

const MEMORIES = 2_500;
const CAP = 2_200; // more than one page of the scan (2 000 rows), fewer than the memories

describe.skipIf(databaseUnavailable())("search without a vector index (the exact scan), bounded", () => {
  const suite = serverWithUser({ VECTOR_INDEX: "exact", EXACT_SEARCH_MAX_MEMORIES: String(CAP) });

  beforeAll(async () => {
    for (let start = 0; start < MEMORIES; start += 100) {
      const items = Array.from({ length: 100 }, (_, i) => ({ content: `note number ${start + i} about the garden zx${start + i}q` }));
      expect((await suite.user.api.post("/api/v1/memory/batch", { memories: items })).status).toBe(200);
    }
  });

  it("compares exactly the user's newest EXACT_SEARCH_MAX_MEMORIES memories, across pages of the scan", async () => {
    const { server, user } = suite;
    const { embedder, index } = server.app.services;
    expect(index.kind).toBe("exact");
    const [vector] = await embedder.embed(["a note about the garden"]);
    const hits = await index.search(embedder.id, vector!, { userId: user.userId }, MEMORIES);
    const newest = await server.app.db.sql.query<{ id: string }>(
      "SELECT id FROM memories WHERE user_id = $1::uuid ORDER BY created_at DESC, id DESC LIMIT $2",
      [user.userId, CAP],
    );
    expect(hits).toHaveLength(CAP);
    expect(new Set(hits.map((hit) => hit.id))).toEqual(new Set(newest.map((row) => row.id)));
  });

  it("still finds an older memory beyond the bound by its words", async () => {
    const oldest = (await suite.user.api.get(`/api/v1/memory/search?query=zx0q`)).body;
    expect(oldest.results[0]).toMatchObject({ content: "note number 0 about the garden zx0q" });
  });
});
