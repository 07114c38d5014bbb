import { describe, expect, it, onTestFinished, vi } from "vitest";
import { freezableRelay } from "../support/freezable-relay.ts";
import { databaseUnavailable, databaseUnderTest, freshPostgresDatabase, serverWithUser, startTestServer } from "../support/server.ts";

// The database stopped, restarted or cutting connections (helper-24): every request answered 500 INTERNAL, logged as a
// bug with its stack; a client could not tell an outage, to be retried, from a fault.
describe.skipIf(databaseUnavailable())("a request the database cannot serve for now", () => {
  const suite = serverWithUser();

  /** The database's statements fail as node-postgres fails them when the server shuts the connection, while `on`. */
  function cutConnections(): { on: boolean } {
    const cut = { on: true };
    const { sql } = suite.server.app.db;
    const query = sql.query.bind(sql);
    sql.query = ((text: string, params?: unknown[]) =>
      cut.on
        ? Promise.reject(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01", severity: "FATAL" }))
        : query(text, params)) as typeof sql.query;
    return cut;
  }

  it("is answered 503 SERVICE_UNAVAILABLE with Retry-After, over REST and GraphQL, and logged as a warning", async () => {
    const { api } = suite.user;
    const ids = await Promise.all(["first", "second"].map(async (content) => (await api.post("/api/v1/memory", { content })).body.id as string));
    const { logger } = suite.server.app;
    const warn = vi.spyOn(logger, "warn");
    const error = vi.spyOn(logger, "error");
    const cut = cutConnections();
    try {
      const rest = await api.delete(`/api/v1/memories/${ids[0]}`);
      expect(rest.status).toBe(503);
      expect(rest.headers.get("retry-after")).toBe("1");
      expect(rest.body).toEqual({ error: { code: "SERVICE_UNAVAILABLE", message: "The database cannot be reached; try again shortly" } });

      const graphql = await api.graphql("mutation ($id: ID!) { deleteMemory(id: $id) }", { id: ids[1] });
      expect(graphql.status).toBe(503);
      expect(graphql.body.errors?.[0]).toMatchObject({ message: "The database cannot be reached; try again shortly", extensions: { code: "SERVICE_UNAVAILABLE" } });

      expect(error).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ err: expect.objectContaining({ code: "57P01" }) }), "a dependency is unavailable: the request failed with 503");
    } finally {
      cut.on = false;
      warn.mockRestore();
      error.mockRestore();
    }
    // and once it answers again, the same requests are served
    expect((await api.delete(`/api/v1/memories/${ids[0]}`)).status).toBe(200);
  });
});

// A PostgreSQL that stops answering with its connections open (kill -STOP, a host gone): requests waited as long (75 s
// in one probe), and under load every request queued behind the pool's stuck connections (helper-24).
describe.skipIf(databaseUnavailable() || databaseUnderTest() !== "postgres")("a database that stops answering", () => {
  it("fails a request past DATABASE_TIMEOUT_MS with 503, and serves again once the database answers", async () => {
    const db = await freshPostgresDatabase();
    onTestFinished(() => db.drop());
    const relay = await freezableRelay(db.url);
    onTestFinished(() => relay.close());
    const server = await startTestServer({ DATABASE_URL: relay.url, DATABASE_TIMEOUT_MS: "1000" });
    onTestFinished(() => server.close());
    const user = await server.newUser();
    const { id } = (await user.api.post("/api/v1/memory", { content: "stored before the freeze" })).body as { id: string };

    relay.freeze(true);
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 12 }, () => user.api.get(`/api/v1/memories/${id}`)));
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 503));
    expect(answers[0]!.body.error.code).toBe("SERVICE_UNAVAILABLE");

    relay.freeze(false);
    const again = await user.api.get(`/api/v1/memories/${id}`);
    expect(again.status, again.text).toBe(200);
    expect(again.body.content).toBe("stored before the freeze");
  });
});
