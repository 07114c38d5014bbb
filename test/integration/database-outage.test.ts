import { describe, expect, it, vi } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

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
