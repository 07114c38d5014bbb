import { describe, expect, it } from "vitest";
import { newId } from "../../src/domain/ids.ts";
import { insertMemories } from "../../src/domain/memory-rows.ts";
import { halveStoredVectors } from "../../src/domain/stored-vectors.ts";
import { createLogger } from "../../src/logger.ts";
import { storedToVector, vectorToBytes } from "../../src/vectors/codec.ts";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

// Memories stored before vectors were kept in half precision hold float32 ones; the start-up rewrite halves them
describe.skipIf(databaseUnavailable())("vectors stored as float32 before", () => {
  const suite = serverWithUser();

  it("are rewritten in half precision, the same vector for every read, with no event or version for it", async () => {
    const { db, embedder } = suite.server.app.services;
    const content = "the spare key is under the blue flowerpot";
    const [vector] = await embedder.embed([content]);
    const [inserted] = await insertMemories(db, [
      {
        id: newId(), userId: suite.user.userId, content, data: null, type: "note", tags: [], metadata: {}, threadId: null,
        isArchived: false, embedding: vectorToBytes(vector!), embedder: embedder.id,
      },
    ], "every");
    const id = inserted!.memory.id;
    const stored = async () =>
      (await db.sql.query<{ embedding: Uint8Array; updatedAt: Date }>(
        `SELECT embedding, updated_at AS "updatedAt" FROM memories WHERE id = $1`,
        [id],
      ))[0]!;
    const changes = async () =>
      (await db.sql.query<{ n: number }>(
        "SELECT (SELECT count(*) FROM events WHERE object_id = $1) + (SELECT count(*) FROM memory_versions WHERE memory_id = $1) AS n",
        [id],
      ))[0]!.n;
    const before = await stored();
    const changesBefore = Number(await changes());
    expect(before.embedding.byteLength).toBe(embedder.dimensions * 4);

    expect(await halveStoredVectors(db, createLogger("silent"))).toBeGreaterThanOrEqual(1);
    const after = await stored();
    expect(after.embedding.byteLength).toBe(1 + embedder.dimensions * 2);
    expect(new Date(after.updatedAt)).toEqual(new Date(before.updatedAt));
    const halved = storedToVector(after.embedding);
    halved.forEach((x, i) => expect(Math.abs(x - vector![i]!)).toBeLessThan(1e-3));
    expect(Number(await changes())).toBe(changesBefore);
    // nothing left to rewrite
    expect(await halveStoredVectors(db, createLogger("silent"))).toBe(0);
    // and a reindex, which reads the stored vectors, finds the memory by its own vector
    const { indexer, index } = suite.server.app.services;
    await indexer.rebuild();
    const [hit] = await index.search(embedder.id, vector!, { userId: suite.user.userId }, 1);
    expect(hit?.id).toBe(id);
    expect(hit?.score).toBeGreaterThan(0.999);
  });
});
