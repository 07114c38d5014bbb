import { describe, expect, it } from "vitest";
import { databaseUnavailable, serverWithUser } from "../support/server.ts";

const MEMORIES = [
  { content: "apollo kickoff", type: "task", metadata: { project: "apollo", priority: 3, due: "2026-05-01T09:00:00Z" } },
  { content: "apollo retro", type: "note", metadata: { project: "apollo", priority: 1 } },
  { content: "gemini budget", type: "task", metadata: { project: "gemini", priority: 5, due: "2026-06-01" } },
  { content: "tagged both", type: "task", metadata: { project: ["apollo", "gemini"] } },
  { content: "no metadata", type: "note" },
];

describe.skipIf(databaseUnavailable())("listing memories by a filter with logic and metadata", () => {
  const suite = serverWithUser();
  const other = serverWithUser();
  const contents = (body: { memories: { content: string }[] }) => body.memories.map((m) => m.content).sort();
  const rest = (filter: unknown, extra = "") =>
    suite.user.api.request("GET", `/api/v1/memory?filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`);

  it("stores the fixtures", async () => {
    for (const memory of MEMORIES) expect((await suite.user.api.request("POST", "/api/v1/memory", { json: memory })).status).toBe(201);
    // another user's memory that every filter below would match: never listed
    const foreign = { content: "foreign apollo", type: "task", metadata: { project: "apollo", priority: 3 } };
    expect((await other.user.api.request("POST", "/api/v1/memory", { json: foreign })).status).toBe(201);
  });

  it.each([
    [{ metadata: [{ path: "project", eq: "apollo" }] }, ["apollo kickoff", "apollo retro", "tagged both"]],
    [{ metadata: [{ path: "priority", gte: 3 }] }, ["apollo kickoff", "gemini budget"]],
    [{ metadata: [{ path: "due", lt: "2026-05-15" }] }, ["apollo kickoff"]],
    [{ metadata: [{ path: "project", in: ["gemini"] }], type: "task" }, ["gemini budget", "tagged both"]],
    [{ or: [{ metadata: [{ path: "priority", gte: 5 }] }, { type: "note" }] }, ["apollo retro", "gemini budget", "no metadata"]],
    [{ not: { metadata: [{ path: "project", exists: true }] } }, ["no metadata"]],
    [{ and: [{ type: "task" }, { not: { metadata: [{ path: "project", eq: "gemini" }] } }] }, ["apollo kickoff"]],
  ])("REST and GraphQL agree on %j", async (filter, expected) => {
    const viaRest = await rest(filter);
    expect(viaRest.status).toBe(200);
    expect(contents(viaRest.body)).toEqual(expected);
    expect(viaRest.body.total).toBe(expected.length);
    const viaGraphql = await suite.user.api.graphql<{ memories: { total: number; items: { content: string }[] } }>(
      "query ($filter: MemoryFilter) { memories(filter: $filter, limit: 100) { total items { content } } }",
      { filter },
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data!.memories.items.map((m) => m.content).sort()).toEqual(expected);
    expect(viaGraphql.body.data!.memories.total).toBe(expected.length);
  });

  it("takes REST's snake_case field names in a filter (and GraphQL's spelling as well)", async () => {
    const archived = await rest({ is_archived: false, type: "note" });
    expect(archived.status).toBe(200);
    expect(contents(archived.body)).toEqual(["apollo retro", "no metadata"]);
    expect(contents((await rest({ isArchived: false, type: "note" })).body)).toEqual(["apollo retro", "no metadata"]);
    const search = await suite.user.api.get(`/api/v1/memory/search?query=apollo&filter=${encodeURIComponent(JSON.stringify({ from_date: "2000-01-01T00:00:00Z" }))}`);
    expect(search.status).toBe(200);
    expect(search.body.results.length).toBeGreaterThan(0);
  });

  it("matches a tag that holds a comma through the filter, where ?tags= splits at commas", async () => {
    const who = await suite.server.newUser();
    const { id } = (await who.api.post("/api/v1/memory", { content: "tagged with a comma", tags: ["a,b"] })).body as { id: string };
    const byFilter = await who.api.get(`/api/v1/memory?filter=${encodeURIComponent(JSON.stringify({ tags: ["a,b"] }))}`);
    expect(byFilter.body.memories.map((m: { id: string }) => m.id)).toEqual([id]);
    expect((await who.api.get("/api/v1/memory?tags=a%2Cb")).body.memories).toEqual([]);
  });

  it("pages a filtered list newest first, with the simple parameters beside the filter", async () => {
    const first = await rest({ metadata: [{ path: "project", exists: true }] }, "&type=task&limit=2");
    expect(first.status).toBe(200);
    expect(first.body.memories.map((m: { content: string }) => m.content)).toEqual(["tagged both", "gemini budget"]);
    expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
    const second = await rest({ metadata: [{ path: "project", exists: true }] }, "&type=task&limit=2&offset=2");
    expect(second.body.memories.map((m: { content: string }) => m.content)).toEqual(["apollo kickoff"]);
    expect(second.body.has_more).toBe(false);
  });

  it("searches within a filter, over REST and GraphQL: nothing outside it, the best match first", async () => {
    const filter = { metadata: [{ path: "priority", gte: 3 }] };
    const query = `query=apollo%20kickoff&filter=${encodeURIComponent(JSON.stringify(filter))}`;
    const viaRest = await suite.user.api.request("GET", `/api/v1/memory/search?${query}`);
    expect(viaRest.status).toBe(200);
    const found: string[] = viaRest.body.results.map((hit: { content: string }) => hit.content);
    expect(found[0]).toBe("apollo kickoff");
    expect(found.filter((content) => !["apollo kickoff", "gemini budget"].includes(content))).toEqual([]);
    const viaBody = await suite.user.api.post("/api/v1/memory/search", { query: "apollo kickoff", filter });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body).toEqual(viaRest.body);
    const stray = await suite.user.api.post("/api/v1/memory/search", { query: "apollo", thread_id: null });
    expect(stray.body.error.message).toBe("thread_id is not a field of a search request");
    const viaGraphql = await suite.user.api.graphql<{ searchMemories: { results: { content: string }[] } }>(
      `query ($filter: SearchFilter) { searchMemories(query: "apollo kickoff", filter: $filter) { results { content } } }`,
      { filter: { or: [{ metadata: [{ path: "project", eq: "gemini" }] }, { type: "note" }] } },
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    const contents = viaGraphql.body.data!.searchMemories.results.map((hit) => hit.content);
    expect(contents.length).toBeGreaterThan(0);
    expect(contents.filter((content) => !["apollo retro", "gemini budget", "tagged both", "no metadata"].includes(content))).toEqual([]);
  });

  it("recalls within a filter, over REST (body and query string) and GraphQL, the question-about-you path left out", async () => {
    const filter = { metadata: [{ path: "project", eq: "apollo" }], type: "task" };
    const viaPost = await suite.user.api.request("POST", "/api/v1/memory/recall", { json: { query: "apollo kickoff retro", filter } });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body.results.map((hit: { content: string }) => hit.content).sort()).toEqual(["apollo kickoff", "tagged both"]);
    const viaGet = await suite.user.api.request("GET", `/api/v1/memory/recall?query=apollo&filter=${encodeURIComponent(JSON.stringify(filter))}`);
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.results.map((hit: { content: string }) => hit.content).sort()).toEqual(["apollo kickoff", "tagged both"]);
    const viaGraphql = await suite.user.api.graphql<{ recall: { queryType: string; results: { content: string }[] } }>(
      `query ($filter: SearchFilter) { recall(query: "what do I like?", filter: $filter) { queryType results { content } } }`,
      { filter: { not: { type: "task" } } },
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data!.recall.queryType).not.toBe("profile");
    const recalled = viaGraphql.body.data!.recall.results.map((hit) => hit.content);
    expect(recalled.length).toBeGreaterThan(0);
    expect(recalled.filter((content) => !["apollo retro", "no metadata"].includes(content))).toEqual([]);
  });

  it.each([
    ["not JSON", "{metadata", "filter"],
    ["a list", JSON.stringify([1]), "filter"],
    ["type twice", JSON.stringify({ type: "task" }), "filter", "&type=note"],
    ["a bad operator", JSON.stringify({ metadata: [{ path: "a", like: 1 }] }), "like"],
    ["too deep", JSON.stringify({ not: { not: { not: { not: { not: { not: { type: "x" } } } } } } }), "deeper than 5 levels"],
    ["naming a bad thread deep inside", JSON.stringify({ or: [{ type: "x" }, { thread_id: "nope" }] }), "or[1].thread_id must be a thread id"],
    ["naming no filter field", JSON.stringify({ colour_name: "red" }), "colour_name is not a field here (known: and, is_archived, metadata, not, or, tags, thread_id, type)"],
    ["naming no filter field in GraphQL's spelling", JSON.stringify({ or: [{ colourName: "red" }] }), "or[0].colourName is not a field here"],
    ["naming search's date bound, which a list does not take", JSON.stringify({ not: { from_date: "2026-01-01T00:00:00Z" } }), "not.from_date is not a field here (known:"],
  ])("answers 400 for a filter that is %s", async (_what, text, words, extra = "") => {
    const res = await suite.user.api.request("GET", `/api/v1/memory?filter=${encodeURIComponent(text)}${extra}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.message).toContain(words);
  });
});
