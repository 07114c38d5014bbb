import { describe, expect, it } from "vitest";
import { databaseUnavailable, databaseUnderTest, serverWithUser } from "../support/server.ts";

// A session time zone with historical offsets: JSON writes a timestamptz in it ("0001-01-01T...-04:56:02 BC"),
// which Date cannot read. The embedded database has one session, so setting its time zone reaches every statement.
describe.runIf(databaseUnderTest() === "pglite" && !databaseUnavailable())("times of memories read as JSON", () => {
  const suite = serverWithUser({ EMBEDDER: "hash" });

  it("are UTC whatever the session's time zone, back to year 1", async () => {
    const api = suite.user.api;
    const id: string = (await api.post("/api/v1/memory", { content: "the founding of the old town" })).body.id;
    const sql = suite.server.app.services.db.sql;
    await sql.query("UPDATE memories SET created_at = '0001-01-01T00:00:00Z', updated_at = '1890-06-01T12:00:00.123Z' WHERE id = $1::uuid", [id]);
    for (const zone of ["America/New_York", "Asia/Kolkata", "Europe/Amsterdam"]) {
      await sql.query(`SET TimeZone = '${zone}'`);
      try {
        const found = await api.get("/api/v1/memory/search?query=founding%20old%20town");
        expect(found.status).toBe(200);
        expect(found.body.results[0]).toMatchObject({ id, created_at: "0001-01-01T00:00:00.000Z", updated_at: "1890-06-01T12:00:00.123Z" });
        const recalled = await api.post("/api/v1/memory/recall", { query: "founding of the old town" });
        expect(recalled.status).toBe(200);
        expect(recalled.body.results[0]).toMatchObject({ id, created_at: "0001-01-01T00:00:00.000Z" });
      } finally {
        await sql.query("SET TimeZone = 'UTC'");
      }
    }
  });
});
