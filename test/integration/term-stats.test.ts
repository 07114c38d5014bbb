import { describe, expect, it, vi } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

describe.skipIf(databaseUnavailable())("recall's term counts, kept between writes", () => {
  const suite = serverWithUser();

  it("counts once while nothing is written, and again after the user's next write", async () => {
    const { server, user } = suite;
    const { termStats, memories } = server.app.services;
    const principal = { userId: user.userId, keyId: user.keyId };
    await memories.create(principal, { content: "kayaking on the lake" });
    await memories.create(principal, { content: "kayaking again, in the rain" });

    const queries = vi.spyOn(server.app.db.sql, "query");
    try {
      const first = await termStats.of(user.userId, ["kayak", "lake", "absent"]);
      expect(first.n).toBe(2);
      expect(Object.fromEntries(first.df)).toEqual({ kayak: 2, lake: 1, absent: 0 });
      const counted = queries.mock.calls.length;
      expect(counted).toBeGreaterThan(0);
      expect(await termStats.of(user.userId, ["lake", "kayak"])).toMatchObject({ n: 2 });
      expect(queries.mock.calls.length).toBe(counted); // kept

      await user.api.post("/api/v1/memory", { content: "a lake house" });
      const after = await termStats.of(user.userId, ["lake"]);
      expect(after.n).toBe(3);
      expect(after.df.get("lake")).toBe(2);
      // another user's writes are not this user's
      const other = await server.newUser();
      await other.api.post("/api/v1/memory", { content: "lake lake lake" });
      queries.mockClear();
      expect((await termStats.of(user.userId, ["lake"])).df.get("lake")).toBe(2);
      expect(queries).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
    }
  });

  it("lets recall find a memory written just before, by a word no memory held until then", async () => {
    const { user } = suite;
    await user.api.post("/api/v1/memory/recall", { query: "zeppelin" });
    await user.api.post("/api/v1/memory", { content: "I flew in a zeppelin over Friedrichshafen" });
    const recalled = await user.api.post("/api/v1/memory/recall", { query: "zeppelin" });
    expect(recalled.body.results[0]).toMatchObject({ content: "I flew in a zeppelin over Friedrichshafen" });
  });
});
