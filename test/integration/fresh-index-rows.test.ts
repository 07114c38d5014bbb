import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/domain/ids.ts";
import { freshRows } from "../../src/domain/index-rows.ts";
import { insertMemories } from "../../src/domain/memory-rows.ts";
import type { VectorPoint } from "../../src/vectors/vector-index.ts";
import { databaseUnavailable, databaseUnderTest, serverWithUser } from "../support/server.ts";
import { replacing } from "../support/wrap-index.ts";

/** Records what reaches the index. */
const recording = (log: { upserted: VectorPoint[]; deleted: string[] }) =>
  replacing((inner) => ({
    upsert: (embedderId, points) => (log.upserted.push(...points), inner.upsert(embedderId, points)),
    delete: (embedderId, ids) => (log.deleted.push(...ids), inner.delete(embedderId, ids)),
  }));

// A writer hands the indexer the rows it has just inserted, so that they are not read back; these are the
// races in which a row is no longer as inserted by the time the indexer gets to it
describe.skipIf(databaseUnavailable())("indexing memories from the rows just inserted", () => {
  const log = { upserted: [] as VectorPoint[], deleted: [] as string[] };
  const suite = serverWithUser({}, { wrapIndex: recording(log) });
  // the flushes here are made by hand, each checked for the tasks it leaves: the background loop, and the start-up
  // reconcile (which queues a task for a memory read before its flush indexed it, a test's insert among them),
  // would race them. Flushes go on as they do for a server's writes.
  beforeAll(() => suite.server.app.services.indexer.stop());

  /** Inserts a memory as a create does with its index task, without applying the task yet. */
  const insertUnflushed = async (content: string) => {
    const { indexer, embedder } = suite.server.app.services;
    const [vector] = await embedder.embed([content]);
    return insertMemories(
      suite.server.app.services.db,
      [
        {
          content, data: null, type: "note", tags: [], metadata: {}, threadId: null, isArchived: false,
          id: newId(), userId: suite.user.userId, ...indexer.embeddingColumns(vector),
        },
      ],
      "every",
    );
  };
  const upsertsOf = (id: string) => log.upserted.filter((point) => point.id === id);

  it("indexes a memory as inserted when nothing else is queued for it", async () => {
    const inserted = await insertUnflushed("the boiler service is due in March");
    const id = inserted[0]!.memory.id;
    await suite.server.app.services.indexer.flush([id], freshRows(inserted));
    expect(upsertsOf(id).map((p) => p.type)).toEqual(["note"]);
    expect(await suite.server.app.services.db.sql.query("SELECT 1 FROM index_tasks WHERE memory_id = $1", [id])).toEqual([]);
  });

  it("indexes a memory as it is now when a later write is queued for it too", async () => {
    const inserted = await insertUnflushed("renew the passport before the summer");
    const id = inserted[0]!.memory.id;
    // a write that committed after the insert, its own flush still to come
    await suite.server.app.services.db.sql.transaction(async (sql) => {
      await sql.query("UPDATE memories SET type = 'task', updated_at = now() + interval '1 second' WHERE id = $1", [id]);
      await sql.query("INSERT INTO index_tasks (memory_id, user_id) VALUES ($1, $2)", [id, suite.user.userId]);
    });
    await suite.server.app.services.indexer.flush([id], freshRows(inserted));
    expect(upsertsOf(id).map((p) => p.type)).toEqual(["task"]);
  });

  it("does not index the row as inserted after a later write's flush has indexed that write", async () => {
    const { indexer, db } = suite.server.app.services;
    const inserted = await insertUnflushed("water the ficus on Sundays");
    const id = inserted[0]!.memory.id;
    await db.sql.transaction(async (sql) => {
      await sql.query("UPDATE memories SET type = 'task', updated_at = now() + interval '1 second' WHERE id = $1", [id]);
      await sql.query("INSERT INTO index_tasks (memory_id, user_id) VALUES ($1, $2)", [id, suite.user.userId]);
    });
    await indexer.flush([id]); // the later write's flush, which applies the insert's task too
    await indexer.indexInserted(inserted); // the insert's own, late
    expect(upsertsOf(id).map((p) => p.type)).toEqual(["task"]);
    expect(await db.sql.query("SELECT 1 FROM index_tasks WHERE memory_id = $1", [id])).toEqual([]);
  });

  it.runIf(databaseUnderTest() === "pglite")(
    "on an index that finds at start what it lacks (usearch), queues no task for a create with its vector, and indexes it as created",
    async () => {
      const { indexer, db } = suite.server.app.services;
      expect(indexer.taskRule).toBe("unembedded");
      const created = await suite.user.api.post("/api/v1/memory", { content: "the bike lock code is 4711", type: "note" });
      expect(created.status).toBe(201);
      expect(upsertsOf(created.body.id).map((p) => p.type)).toEqual(["note"]);
      expect(await db.sql.query("SELECT 1 FROM index_tasks WHERE memory_id = $1", [created.body.id])).toEqual([]);
      // a batch alike
      const batch = await suite.user.api.post("/api/v1/memory/batch", { memories: [{ content: "first of two" }, { content: "second of two" }] });
      const ids = (batch.body.results as { id: string }[]).map((result) => result.id);
      expect(ids.flatMap((id) => upsertsOf(id))).toHaveLength(2);
      expect(await db.sql.query("SELECT 1 FROM index_tasks WHERE memory_id = ANY($1::uuid[])", [ids])).toEqual([]);
    },
  );

  it("leaves out a memory deleted (and unindexed) before the insert's flush ran", async () => {
    const inserted = await insertUnflushed("the neighbour's cat is called Biscuit");
    const id = inserted[0]!.memory.id;
    await suite.server.app.services.memories.delete({ userId: suite.user.userId, keyId: suite.user.keyId }, id);
    expect(log.deleted).toContain(id);
    await suite.server.app.services.indexer.flush([id], freshRows(inserted));
    expect(upsertsOf(id)).toEqual([]);
  });
});
