import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import { openPGlite } from "../../src/db/pglite.ts";
import { LEXICAL_SHARE } from "../../src/domain/fusion.ts";
import { newId } from "../../src/domain/ids.ts";
import { insertMemories } from "../../src/domain/memory-rows.ts";
import { BuiltinEmbedder } from "../../src/embeddings/builtin.ts";
import type { Embedder } from "../../src/embeddings/embedder.ts";
import { FakeQdrant } from "../support/fake-qdrant.ts";
import { HttpClient } from "../support/http.ts";
import { databaseUnavailable, databaseUnderTest, persistentDatabase, startTestServer, type TestServer } from "../support/server.ts";
import { replacing } from "../support/wrap-index.ts";

/** Wraps an index so that its writes fail while `failing` is true. */
function flaky(failing: { on: boolean }) {
  const unreachable = () => Promise.reject(new Error("index unreachable"));
  return replacing((inner) => ({
    upsert: (embedderId, points) => (failing.on ? unreachable() : inner.upsert(embedderId, points)),
    delete: (embedderId, ids) => (failing.on ? unreachable() : inner.delete(embedderId, ids)),
  }));
}

/** The hashed embedder as one that embeds as it writes (not deferring), through `embed`, under `id` (its own by default). */
function builtinThrough(embed: (texts: readonly string[], builtin: BuiltinEmbedder) => Promise<Float32Array[]>, id?: string): Embedder {
  const builtin = new BuiltinEmbedder();
  return { id: id ?? builtin.id, dimensions: builtin.dimensions, deferWrites: false, embed: (texts) => embed(texts, builtin) };
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, seconds = 20): Promise<T> {
  for (let waited = 0; ; waited += 250) {
    const value = await probe();
    if (done(value) || waited > seconds * 1000) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const searchIds = async (api: { get(path: string): Promise<{ body: { results: { id: string }[] } }> }, query: string) =>
  (await api.get(`/api/v1/memory/search?query=${encodeURIComponent(query)}&limit=100`)).body.results.map((r) => r.id);

describe.skipIf(databaseUnavailable())("index consistency", () => {
  let database: { env: Env; drop(): Promise<void> };
  beforeAll(async () => {
    database = await persistentDatabase();
  });
  afterAll(() => database?.drop());

  it("stores a memory whose index write failed, and finds it once the index recovers (retried in the background)", async () => {
    const failing = { on: true };
    // an index of its own, which can miss a memory (the exact scan reads the database itself): usearch on the
    // embedded database, Qdrant (the fake) on PostgreSQL, whether or not it has pgvector
    const qdrant = databaseUnderTest() === "postgres" ? await FakeQdrant.start() : undefined;
    const server = await startTestServer(
      qdrant ? { QDRANT_URL: qdrant.url } : { DATA_DIR: "memory://", VECTOR_INDEX: "usearch" },
      { wrapIndex: flaky(failing) },
    );
    try {
      const user = await server.newUser();
      const created = await user.api.post("/api/v1/memory", { content: "the spare key is under the blue flowerpot" });
      expect(created.status).toBe(201);
      const { index, embedder } = server.app.services;
      expect(index.kind).toBe(qdrant ? "qdrant" : "usearch");
      const indexed = async () =>
        (await index.search(embedder.id, (await embedder.embed(["spare key flowerpot"]))[0]!, { userId: user.userId }, 10)).map((h) => h.id);
      // missing from the index, but search still finds it, by its words and the vector stored with it
      expect(await indexed()).not.toContain(created.body.id);
      expect((await searchIds(user.api, "spare key flowerpot"))[0]).toBe(created.body.id);
      const [task] = await server.app.db.sql.query<{ attempts: number; last_error: string }>(
        "SELECT attempts, last_error FROM index_tasks WHERE memory_id = $1",
        [created.body.id],
      );
      expect(task).toMatchObject({ attempts: 1, last_error: "index unreachable" });

      failing.on = false;
      const queued = await until(() => server.app.db.sql.query("SELECT 1 FROM index_tasks"), (rows) => rows.length === 0);
      expect(queued).toEqual([]);
      expect(await indexed()).toContain(created.body.id);
    } finally {
      await server.close();
      await qdrant?.close();
    }
  });

  // a Qdrant that took requests and never answered held each write 15-30 s after its commit (outside probe)
  it("answers writes within 5 s while the index hangs, and indexes them once it answers", async () => {
    const hanging = { on: true };
    let release = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    const qdrant = databaseUnderTest() === "postgres" ? await FakeQdrant.start() : undefined;
    const server = await startTestServer(
      qdrant ? { QDRANT_URL: qdrant.url } : { DATA_DIR: "memory://", VECTOR_INDEX: "usearch" },
      {
        wrapIndex: replacing((inner) => ({
          upsert: async (embedderId, points) => {
            if (hanging.on) await answered;
            return inner.upsert(embedderId, points);
          },
        })),
      },
    );
    try {
      const user = await server.newUser();
      const started = performance.now();
      const [created, batch] = await Promise.all([
        user.api.post("/api/v1/memory", { content: "the spare tyre is in the garage loft" }),
        user.api.post("/api/v1/memory/batch", { memories: [{ content: "the ladder hangs in the shed" }] }),
      ]);
      expect([created.status, batch.status]).toEqual([201, 200]);
      expect(performance.now() - started).toBeLessThan(9_000);
      expect((await user.api.get(`/api/v1/memories/${created.body.id}`)).status).toBe(200);
      hanging.on = false;
      release();
      const { index, embedder } = server.app.services;
      const indexed = async () =>
        (await index.search(embedder.id, (await embedder.embed(["spare tyre garage loft"]))[0]!, { userId: user.userId }, 10)).map((h) => h.id);
      expect(await until(indexed, (ids) => ids.includes(created.body.id))).toContain(created.body.id);
    } finally {
      hanging.on = false;
      release();
      await server.close();
      await qdrant?.close();
    }
  }, 30_000);

  // a Qdrant away at start stopped the service from starting: every restart during its outage was an outage of
  // writes too (outside probe)
  it("starts while Qdrant does not answer: writes stored, searches 503, and indexed once Qdrant is back", async () => {
    const away = await FakeQdrant.start();
    const port = Number(new URL(away.url).port);
    await away.close();
    const server = await startTestServer(
      databaseUnderTest() === "postgres" ? { QDRANT_URL: `http://127.0.0.1:${port}` } : { DATA_DIR: "memory://", QDRANT_URL: `http://127.0.0.1:${port}` },
    );
    let qdrant: FakeQdrant | undefined;
    try {
      const ready = await server.client().get("/readyz");
      expect([ready.status, ready.body.checks.vectorIndex.ok]).toEqual([503, false]);
      const user = await server.newUser();
      const created = await user.api.post("/api/v1/memory", { content: "the boat keys hang by the back door" });
      expect(created.status).toBe(201);
      const unavailable = await user.api.get("/api/v1/memory/search?query=boat%20keys");
      expect([unavailable.status, unavailable.headers.get("retry-after")]).toEqual([503, "5"]);
      qdrant = await FakeQdrant.start({ port });
      const found = await until(
        async () => (await user.api.get("/api/v1/memory/search?query=boat%20keys")).body.results?.map((r: { id: string }) => r.id) ?? [],
        (ids: string[]) => ids.includes(created.body.id),
      );
      expect(found).toContain(created.body.id);
      expect((await server.client().get("/readyz")).status).toBe(200);
    } finally {
      await server.close();
      await qdrant?.close();
    }
  }, 60_000);

  // a connection terminated by the database between the write's commit and its index work (helper-24): the write
  // was stored, and its 500 led a retrying client to store it twice
  it("answers a committed write as done when applying its index task fails after the commit, and applies it later", async () => {
    const server = await startTestServer();
    try {
      const user = await server.newUser();
      const created = await user.api.post("/api/v1/memory", { content: "the bike lock code is 4711" });
      const { sql } = server.app.db;
      const query = sql.query.bind(sql);
      let failed = 0;
      sql.query = ((text: string, params?: unknown[]) => {
        if (failed === 0 && /FROM index_tasks WHERE memory_id = ANY/.test(text)) {
          failed++;
          return Promise.reject(new Error("terminating connection due to administrator command"));
        }
        return query(text, params);
      }) as typeof sql.query;
      const patched = await user.api.patch(`/api/v1/memories/${created.body.id}`, { content: "the garage door code is 0815" });
      expect(failed).toBe(1);
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.content).toBe("the garage door code is 0815");
      const queued = await until(() => sql.query("SELECT 1 FROM index_tasks"), (rows) => rows.length === 0);
      expect(queued).toEqual([]);
      expect((await searchIds(user.api, "garage door code"))[0]).toBe(created.body.id);
    } finally {
      await server.close();
    }
  });

  it("makes a Qdrant collection lost behind its back again, with every memory's vector, at once and at the next start", async () => {
    const qdrant = await FakeQdrant.start();
    const env = { ...database.env, QDRANT_URL: qdrant.url };
    let server = await startTestServer(env);
    try {
      const user = await server.newUser();
      const ids: string[] = [];
      for (const content of ["the spare key is under the blue flowerpot", "the boat is moored at pier nine", "tea at four"]) {
        ids.push((await user.api.post("/api/v1/memory", { content })).body.id);
      }
      const points = async (at: TestServer) => (await at.app.services.index.count(at.app.services.embedder.id));
      expect(await until(() => points(server), (n) => n === 3)).toBe(3);
      // Qdrant restarted without persistence: the collection is gone
      qdrant.collections.clear();
      // the first search finds it gone (a 503, as while Qdrant is away); the collection is made again and refilled
      expect((await user.api.get("/api/v1/memory/search?query=spare%20key")).status).toBe(503);
      expect(await until(() => points(server), (n) => n === 3)).toBe(3);
      expect((await searchIds(user.api, "spare key flowerpot"))[0]).toBe(ids[0]);
      // and across a restart, lost while the service was away
      await server.close();
      qdrant.collections.clear();
      server = await startTestServer(env);
      expect(await until(() => points(server), (n) => n === 3)).toBe(3);
      expect((await searchIds(new HttpClient(server.url, user.key), "boat moored pier"))[0]).toBe(ids[1]);
    } finally {
      await server.close();
      await qdrant.close();
    }
  });

  it("deletes a memory from the Qdrant collections of the embedders before this one too", async () => {
    const qdrant = await FakeQdrant.start();
    const env = { ...database.env, QDRANT_URL: qdrant.url };
    const named = (id: string) => builtinThrough((texts, builtin) => builtin.embed(texts), id);
    const holding = (id: string) => [...qdrant.collections.values()].filter((collection) => collection.points.has(id)).length;
    let server = await startTestServer(env, { embedder: named("first-embedder") });
    try {
      const user = await server.newUser();
      const id: string = (await user.api.post("/api/v1/memory", { content: "the old password hint is in the blue notebook" })).body.id;
      expect(await until(async () => holding(id), (n) => n === 1)).toBe(1);
      await server.close();
      // another embedder: the memory is embedded again, into a collection of its own
      server = await startTestServer(env, { embedder: named("second-embedder") });
      expect(await until(async () => holding(id), (n) => n === 2)).toBe(2);
      expect((await new HttpClient(server.url, user.key).delete(`/api/v1/memories/${id}`)).status).toBe(200);
      expect(await until(async () => holding(id), (n) => n === 0, 5)).toBe(0);
    } finally {
      await server.close();
      await qdrant.close();
    }
  });

  it("applies index work left queued by a stopped server when the next one starts", async () => {
    const failing = { on: true };
    const first = await startTestServer(database.env, { wrapIndex: flaky(failing) });
    const user = await first.newUser("restart@example.com");
    const created = await user.api.post("/api/v1/memory", { content: "the boat is moored at pier seven" });
    expect(created.status).toBe(201);
    await first.app.close();

    const second = await startTestServer(database.env);
    try {
      const api = second.client(user.key);
      const found = await until(() => searchIds(api, "boat moored pier"), (ids) => ids.includes(created.body.id));
      expect(found).toContain(created.body.id);
    } finally {
      await second.app.close();
    }
  });

  // after a kill -9 mid-round the next server waited out the round's 120 s lease before embedding (outside probe)
  it.runIf(databaseUnderTest() === "pglite")("embeds at once, on the embedded database, the tasks an earlier process held leased", async () => {
    const embedder = builtinThrough(() => Promise.reject(new Error("embedder down")));
    const first = await startTestServer(database.env, { embedder });
    const user = await first.newUser("leased@example.com");
    const created = await user.api.post("/api/v1/memory", { content: "the spare key is under the blue flowerpot" });
    expect(created.status).toBe(201);
    // as a round leaves its tasks when its process is killed while it embeds them
    await first.app.db.sql.query("UPDATE index_tasks SET available_at = now() + interval '120 seconds'");
    await first.app.close();

    const second = await startTestServer(database.env);
    try {
      const embedded = async () =>
        (await second.app.db.sql.query<{ embedded: boolean }>("SELECT embedding IS NOT NULL AS embedded FROM memories WHERE id = $1::uuid", [created.body.id]))[0]?.embedded;
      expect(await until(embedded, (done) => done === true, 10)).toBe(true);
    } finally {
      await second.app.close();
    }
  });

  // the start-up reconcile read the memories, then deleted from the index what it held beyond them: a memory
  // written in between was indexed, then deleted from the index (a race a test met under load)
  it.runIf(databaseUnderTest() === "pglite")("keeps in the index a memory written while the start-up reconcile runs", async () => {
    let reached!: () => void;
    const reconciling = new Promise<void>((resolve) => (reached = resolve));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const reported: string[] = [];
    const deleted: string[] = [];
    const wrapIndex = replacing((inner) => ({
      reconcile: async (embedderId, versions) => {
        reached();
        await gate; // the memories read, their index not yet compared with them
        const found = await inner.reconcile!(embedderId, versions);
        reported.push(...found.extra);
        return found;
      },
      delete: (embedderId, ids) => (deleted.push(...ids), inner.delete(embedderId, ids)),
    }));
    const server = await startTestServer({ DATA_DIR: "memory://", VECTOR_INDEX: "usearch" }, { wrapIndex });
    try {
      await reconciling;
      const user = await server.newUser();
      const created = await user.api.post("/api/v1/memory", { content: "the ladder hangs in the garage" });
      expect(created.status).toBe(201);
      open();
      await server.app.services.indexer.stop(); // the start-up work, its deletes included, done
      expect(reported, "the index held it beyond what was read").toContain(created.body.id);
      expect(deleted).not.toContain(created.body.id);
    } finally {
      open();
      await server.close();
    }
  });

  it("waits EMBEDDER_WAIT_MS at most for an embedder that hangs: a create is stored without its vector, a search answers 503", async () => {
    const hanging = { on: true };
    // an endpoint that answers after 3 s (one that never does is cut off by the client's own timeout)
    const embedder = builtinThrough((texts, builtin) => (hanging.on ? sleep(3_000).then(() => builtin.embed(texts)) : builtin.embed(texts)));
    const server = await startTestServer({ DATA_DIR: "memory://", EMBEDDER_WAIT_MS: "300" }, { embedder });
    try {
      const user = await server.newUser();
      const started = performance.now();
      const created = await user.api.post("/api/v1/memory", { content: "the spare tyre is in the boot" });
      expect(created.status).toBe(201);
      const searched = await user.api.get("/api/v1/memory/search?query=spare%20tyre");
      expect(searched.status).toBe(503);
      expect(searched.headers.get("retry-after"), "as the database's 503s say when to come back").toBe("5");
      // two waits of 300 ms, not the endpoint's 3 s each
      expect(performance.now() - started).toBeLessThan(2_500);
      hanging.on = false;
      const found = await until(() => searchIds(user.api, "spare tyre boot"), (ids) => ids.includes(created.body.id));
      expect(found[0]).toBe(created.body.id);
    } finally {
      await server.close();
    }
  });

  it("stores a memory while the embedder is down, and embeds it later", async () => {
    const down = { on: true };
    const embedder = builtinThrough((texts, builtin) => (down.on ? Promise.reject(new Error("embedder down")) : builtin.embed(texts)));
    const server = await startTestServer({ DATA_DIR: "memory://" }, { embedder });
    try {
      const user = await server.newUser();
      const created = await user.api.post("/api/v1/memory", { content: "passport renewal form is in the desk drawer" });
      expect(created.status).toBe(201);
      const [row] = await server.app.db.sql.query<{ embedding: unknown }>("SELECT embedding FROM memories WHERE id = $1", [
        created.body.id,
      ]);
      expect(row?.embedding).toBeNull();
      const warn = vi.spyOn(server.app.logger, "warn");
      const unavailable = await user.api.get("/api/v1/memory/search?query=passport");
      expect(unavailable.status).toBe(503);
      expect(unavailable.body.error.code).toBe("SERVICE_UNAVAILABLE");
      // the client is told to try again; the log says why (it said nothing), over REST and GraphQL alike
      const cause = expect.objectContaining({ err: expect.objectContaining({ message: "embedder down" }) });
      expect(warn).toHaveBeenCalledExactlyOnceWith(cause, "a dependency is unavailable: the request failed with 503");
      const graphql = await user.api.graphql(`{ searchMemories(query: "passport") { total } }`);
      expect(graphql.body.errors?.[0]?.extensions?.code).toBe("SERVICE_UNAVAILABLE");
      expect(warn).toHaveBeenCalledTimes(2);
      expect(warn).toHaveBeenLastCalledWith(cause, "a dependency is unavailable: the request failed with 503");

      down.on = false;
      const found = await until(() => searchIds(user.api, "passport renewal"), (ids) => ids.includes(created.body.id));
      expect(found[0]).toBe(created.body.id);
    } finally {
      await server.close();
    }
  });

  it("with a deferring embedder, embeds in the background and backs off while the embedder is down", async () => {
    const builtin = new BuiltinEmbedder();
    const down = { on: true };
    const calls = { background: 0 };
    const embedder: Embedder = {
      id: builtin.id,
      dimensions: builtin.dimensions,
      deferWrites: true,
      embed: (texts, priority) => {
        if (priority === "background") calls.background++;
        return down.on && priority === "background" ? Promise.reject(new Error("encoder down")) : builtin.embed(texts);
      },
    };
    const server = await startTestServer({ DATA_DIR: "memory://" }, { embedder });
    try {
      const user = await server.newUser();
      const created = await user.api.post("/api/v1/memory", { content: "the ladder is in the garage loft" });
      expect(created.status).toBe(201);
      const embedding = async () =>
        (await server.app.db.sql.query<{ embedding: unknown }>("SELECT embedding FROM memories WHERE id = $1", [created.body.id]))[0]
          ?.embedding;
      expect(await embedding()).toBeNull();
      expect((await searchIds(user.api, "ladder garage"))[0]).toBe(created.body.id); // by its words, at once
      // tried once, then waits out its backoff (2 s) rather than trying again at once; seen once the first attempt is
      // recorded, however long a loaded machine took to make it (a fixed wait of 1.5 s could end before it)
      const [task] = await until(
        () => server.app.db.sql.query<{ attempts: number; waiting: boolean }>(
          "SELECT attempts, available_at > now() AS waiting FROM index_tasks WHERE memory_id = $1",
          [created.body.id],
        ),
        (rows) => (rows[0]?.attempts ?? 0) >= 1,
      );
      expect(task).toEqual({ attempts: 1, waiting: true });
      expect(calls.background).toBe(1);

      down.on = false;
      await until(() => server.app.db.sql.query("SELECT 1 FROM index_tasks"), (rows) => rows.length === 0);
      expect(await embedding()).not.toBeNull();
      const hit = (await user.api.get("/api/v1/memory/search?query=ladder%20garage")).body.results[0];
      expect(hit.id).toBe(created.body.id);
      expect(hit.score).toBeGreaterThan(LEXICAL_SHARE);
    } finally {
      await server.close();
    }
  });

  it.runIf(databaseUnderTest() === "pglite")(
    "indexes at the next start a memory stored with its vector and no task whose index write a crash prevented",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "memory-usearch-"));
      try {
        const first = await startTestServer({ DATA_DIR: dir, VECTOR_INDEX: "usearch" });
        const user = await first.newUser();
        const { indexer, embedder, index, db } = first.app.services;
        const content = "the gas meter is read on the first of the month";
        const [stored] = await insertMemories(
          db,
          [{ id: newId(), userId: user.userId, content, data: null, type: "note", tags: [], metadata: {}, threadId: null, isArchived: false, ...indexer.embeddingColumns((await embedder.embed([content]))[0]) }],
          indexer.taskRule,
        );
        expect(stored!.taskId).toBeNull(); // nothing queued: the crash comes before its index write
        await first.app.close();

        const second = await startTestServer({ DATA_DIR: dir, VECTOR_INDEX: "usearch" });
        try {
          const query = (await second.app.services.embedder.embed(["gas meter reading"]))[0]!;
          const indexed = await until(
            async () => (await second.app.services.index.search(embedder.id, query, { userId: user.userId }, 5)).map((hit) => hit.id),
            (ids) => ids.includes(stored!.memory.id),
          );
          expect(indexed).toContain(stored!.memory.id);
          expect(index.kind).toBe("usearch");
        } finally {
          await second.app.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(databaseUnderTest() === "pglite")(
    "reloads the embedded index from its files and reconciles it with what changed behind its back",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "memory-usearch-"));
      try {
        const first = await startTestServer({ DATA_DIR: dir, VECTOR_INDEX: "usearch" });
        const user = await first.newUser();
        const kept = (await user.api.post("/api/v1/memory", { content: "the wifi password is on the fridge" })).body.id;
        const removed = (await user.api.post("/api/v1/memory", { content: "the wifi router reboots at midnight" })).body.id;
        await first.app.close(); // saves the index files

        // a change the index never saw: a memory deleted straight in the database
        const db = await openPGlite(dir);
        await db.sql.query("DELETE FROM memories WHERE id = $1", [removed]);
        await db.close();

        const third = await startTestServer({ DATA_DIR: dir, VECTOR_INDEX: "usearch" });
        try {
          const ids = await until(() => searchIds(third.client(user.key), "wifi"), (found) => !found.includes(removed));
          expect(ids).toEqual([kept]);
        } finally {
          await third.app.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
