import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/domain/ids.ts";
import { freshRows } from "../../src/domain/index-rows.ts";
import { insertMemories } from "../../src/domain/memory-rows.ts";
import type { VectorIndex, VectorPoint } from "../../src/vectors/vector-index.ts";
import { databaseUnavailable, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

/** Records what reaches the index. */
function recording(log: { upserted: VectorPoint[]; deleted: string[] }) {
  return (inner: VectorIndex): VectorIndex =>
    new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        if (property === "upsert") {
          return (embedderId: string, points: readonly VectorPoint[]) => (log.upserted.push(...points), target.upsert(embedderId, points));
        }
        if (property === "delete") {
          return (embedderId: string, ids: readonly string[]) => (log.deleted.push(...ids), target.delete(embedderId, ids));
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
}

// A writer hands the indexer the rows it has just inserted, so that they are not read back; these are the
// races in which a row is no longer as inserted by the time the indexer gets to it
describe.skipIf(databaseUnavailable())("indexing memories from the rows just inserted", () => {
  const log = { upserted: [] as VectorPoint[], deleted: [] as string[] };
  let server: TestServer;
  let user: TestUser;

  /** Inserts a memory as a create does, without applying its index task yet. */
  const insertUnflushed = async (content: string) => {
    const { indexer, embedder } = server.app.services;
    const [vector] = await embedder.embed([content]);
    return insertMemories(server.app.services.db, [
      {
        content, data: null, type: "note", tags: [], metadata: {}, threadId: null, isArchived: false,
        id: newId(), userId: user.userId, ...indexer.embeddingColumns(vector),
      },
    ]);
  };
  const upsertsOf = (id: string) => log.upserted.filter((point) => point.id === id);

  beforeAll(async () => {
    server = await startTestServer({}, { wrapIndex: recording(log) });
    user = await server.newUser();
  });
  afterAll(() => server?.close());

  it("indexes a memory as inserted when nothing else is queued for it", async () => {
    const inserted = await insertUnflushed("the boiler service is due in March");
    const id = inserted[0]!.memory.id;
    await server.app.services.indexer.flush([id], freshRows(inserted));
    expect(upsertsOf(id).map((p) => p.type)).toEqual(["note"]);
    expect(await server.app.services.db.sql.query("SELECT 1 FROM index_tasks WHERE memory_id = $1", [id])).toEqual([]);
  });

  it("indexes a memory as it is now when a later write is queued for it too", async () => {
    const inserted = await insertUnflushed("renew the passport before the summer");
    const id = inserted[0]!.memory.id;
    // a write that committed after the insert, its own flush still to come
    await server.app.services.db.sql.transaction(async (sql) => {
      await sql.query("UPDATE memories SET type = 'task', updated_at = now() + interval '1 second' WHERE id = $1", [id]);
      await sql.query("INSERT INTO index_tasks (memory_id, user_id) VALUES ($1, $2)", [id, user.userId]);
    });
    await server.app.services.indexer.flush([id], freshRows(inserted));
    expect(upsertsOf(id).map((p) => p.type)).toEqual(["task"]);
  });

  it("does not index the row as inserted after a later write's flush has indexed that write", async () => {
    const { indexer, db } = server.app.services;
    const inserted = await insertUnflushed("water the ficus on Sundays");
    const id = inserted[0]!.memory.id;
    await db.sql.transaction(async (sql) => {
      await sql.query("UPDATE memories SET type = 'task', updated_at = now() + interval '1 second' WHERE id = $1", [id]);
      await sql.query("INSERT INTO index_tasks (memory_id, user_id) VALUES ($1, $2)", [id, user.userId]);
    });
    await indexer.flush([id]); // the later write's flush, which applies the insert's task too
    await indexer.indexInserted(inserted); // the insert's own, late
    expect(upsertsOf(id).map((p) => p.type)).toEqual(["task"]);
    expect(await db.sql.query("SELECT 1 FROM index_tasks WHERE memory_id = $1", [id])).toEqual([]);
  });

  it("leaves out a memory deleted (and unindexed) before the insert's flush ran", async () => {
    const inserted = await insertUnflushed("the neighbour's cat is called Biscuit");
    const id = inserted[0]!.memory.id;
    await server.app.services.memories.delete({ userId: user.userId, keyId: user.keyId }, id);
    expect(log.deleted).toContain(id);
    await server.app.services.indexer.flush([id], freshRows(inserted));
    expect(upsertsOf(id)).toEqual([]);
  });
});
