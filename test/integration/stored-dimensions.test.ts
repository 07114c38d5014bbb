import { describe, expect, it } from "vitest";
import { storedDimensions } from "../../src/domain/stored-vectors.ts";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

// what an OpenAI-compatible endpoint down at start is taken to make: the size of the vectors it made before
describe.skipIf(databaseUnavailable())("the size of an embedder's stored vectors", () => {
  const suite = serverWithUser();

  it("is read from the newest memory it embedded, by the stem of its id, and is unknown without one", async () => {
    const { db } = suite.server.app;
    const older = (await suite.user.api.post("/api/v1/memory", { content: "older" })).body.id as string;
    const newer = (await suite.user.api.post("/api/v1/memory", { content: "newer" })).body.id as string;
    const mark = (id: string, embedder: string) => db.sql.query("UPDATE memories SET embedder = $2 WHERE id = $1::uuid", [id, embedder]);
    await mark(older, "openai:probe-model@10.0.0.9:8080:768");
    await mark(newer, "openai:probe-model@10.0.0.9:8080:1024");
    expect(await storedDimensions(db, "openai:probe-model@10.0.0.9:8080:")).toBe(1024);
    expect(await storedDimensions(db, "openai:probe-model@10.0.0.9:")).toBeUndefined();
    expect(await storedDimensions(db, "openai:other-model:")).toBeUndefined();
  });
});
