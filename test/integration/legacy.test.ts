import { describe, expect, it } from "vitest";
import { databaseAgnosticRun, serverWithUser, startTestServer } from "../support/server.ts";

const DEPRECATION_HEADERS = {
  deprecation: "true",
  sunset: "Tue, 30 Jun 2026 23:59:59 GMT",
  link: '</docs/migration>; rel="deprecation"',
  "x-api-warn": "Deprecated: use /api/v1/memory (user-scoped through the API key); see /docs/migration",
};

const USER_ID_IGNORED = "userId is ignored: the API key decides whose memories these are";

const headersOf = (res: { headers: Headers }) =>
  Object.fromEntries(Object.keys(DEPRECATION_HEADERS).map((name) => [name, res.headers.get(name)]));

describe.runIf(databaseAgnosticRun())("deprecated collection routes", () => {
  const suite = serverWithUser();

  it("POST /api/v1/memories answers 201 in the legacy shape, with the four deprecation headers", async () => {
    const res = await suite.user.api.post("/api/v1/memories", {
      workspaceId: "ws_1",
      userId: "legacy-user-42",
      content: "prefers the window seat",
      kind: "preference",
    });
    expect(res.status).toBe(201);
    expect(headersOf(res)).toEqual({ ...DEPRECATION_HEADERS, "x-api-warn": `${DEPRECATION_HEADERS["x-api-warn"]}; ${USER_ID_IGNORED}` });
    expect(res.body).toEqual({
      id: expect.any(String),
      workspaceId: "ws_1",
      userId: "legacy-user-42",
      content: "prefers the window seat",
      kind: "preference",
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it("GET /api/v1/memories lists the workspace's memories, with the headers", async () => {
    await suite.user.api.post("/api/v1/memories", { workspaceId: "ws_list", content: "one", kind: "task" });
    await suite.user.api.post("/api/v1/memories", { workspaceId: "ws_list", content: "two" });
    await suite.user.api.post("/api/v1/memories", { workspaceId: "ws_elsewhere", content: "three" });
    const res = await suite.user.api.get("/api/v1/memories?workspaceId=ws_list&limit=1");
    expect(res.status).toBe(200);
    expect(headersOf(res)).toEqual(DEPRECATION_HEADERS);
    expect(res.body).toMatchObject({ total: 2, limit: 1, offset: 0, has_more: true });
    expect(res.body.memories[0]).toMatchObject({ content: "two", kind: null, workspaceId: "ws_list" });
  });

  it("puts the headers on errors too", async () => {
    const missing = await suite.user.api.post("/api/v1/memories", { content: "no workspace" });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toEqual({ code: "VALIDATION_ERROR", message: "workspaceId is required" });
    // a field named as the legacy body names it: `kind`, the service's type
    const badKind = await suite.user.api.post("/api/v1/memories", { workspaceId: "ws_1", content: "x", kind: "BAD KIND" });
    expect(badKind.body.error.message).toMatch(/^kind must be a short lowercase word/);
    // ...and one the route does not take as it was sent: the service's own `type` is no field here
    const type = await suite.user.api.post("/api/v1/memories", { workspaceId: "ws_1", content: "x", type: "task" });
    expect(type.body.error).toEqual({ code: "VALIDATION_ERROR", message: "type is not a field of this (deprecated) route" });
    expect(headersOf(missing)).toEqual(DEPRECATION_HEADERS);
    const noList = await suite.user.api.get("/api/v1/memories");
    expect(noList.status).toBe(400);
    expect(noList.body.error.message).toBe("workspaceId is required");
    const anonymous = await suite.server.client().get("/api/v1/memories?workspaceId=ws_1");
    expect(anonymous.status).toBe(401);
    expect(headersOf(anonymous)).toEqual(DEPRECATION_HEADERS);
  });

  it("answers a method the collection path lacks with 405, and with the deprecation headers: the path is on its way out", async () => {
    const res = await suite.user.api.delete("/api/v1/memories");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, GET, HEAD");
    expect(headersOf(res)).toEqual(DEPRECATION_HEADERS);
    // the item routes stay, so a wrong method on them is no deprecated route
    const item = await suite.user.api.request("POST", "/api/v1/memories/0198a3f2-0000-7000-8000-000000000000", { json: {} });
    expect(item.status).toBe(405);
    expect(item.headers.get("deprecation")).toBeNull();
  });

  it("accepts ttlMinutes and ttl_expires_at, ignores them, and says so in X-API-Warn", async () => {
    const res = await suite.user.api.post("/api/v1/memories", {
      workspaceId: "ws_1",
      content: "temporary note",
      ttlMinutes: 30,
      ttl_expires_at: "2030-01-01T00:00:00Z",
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-api-warn")).toContain("ttlMinutes and ttl_expires_at are no longer supported");
    expect(res.headers.get("deprecation")).toBe("true");
  });

  it("stores ordinary memories: read, patched and deleted on /api/v1/memories/{id}, listed on /api/v1/memory", async () => {
    const created = (await suite.user.api.post("/api/v1/memories", { workspaceId: "ws_2", content: "legacy made", kind: "task" })).body;
    const read = await suite.user.api.get(`/api/v1/memories/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ content: "legacy made", type: "task" });
    expect(read.headers.get("deprecation")).toBeNull();
    const patched = await suite.user.api.patch(`/api/v1/memories/${created.id}`, { content: "legacy changed" });
    expect(patched.body.content).toBe("legacy changed");
    const listed = await suite.user.api.get("/api/v1/memory?limit=100");
    expect(listed.body.memories.map((m: { id: string }) => m.id)).toContain(created.id);
    expect(listed.headers.get("deprecation")).toBeNull();
    expect((await suite.user.api.delete(`/api/v1/memories/${created.id}`)).status).toBe(200);
    expect((await suite.user.api.get(`/api/v1/memories/${created.id}`)).status).toBe(404);
  });

  it("accepts the fields legacy clients still send, ignores them for scoping, and says so in X-API-Warn", async () => {
    const list = await suite.user.api.get("/api/v1/memories?workspaceId=ws-1&userId=u-1&limit=100");
    expect(list.status).toBe(200);
    expect(list.headers.get("x-api-warn")).toBe(`${DEPRECATION_HEADERS["x-api-warn"]}; ${USER_ID_IGNORED}`);

    const other = await suite.server.newUser();
    const theirs = (await other.api.post("/api/v1/memory", { content: "not yours" })).body;
    const created = (await suite.user.api.post("/api/v1/memories", { workspaceId: "ws-1", userId: "u-1", content: "legacy record" })).body;
    const scope = `workspaceId=ws-1&userId=${other.userId}`;
    const read = await suite.user.api.get(`/api/v1/memories/${created.id}?${scope}`);
    expect(read.status).toBe(200);
    expect(read.headers.get("x-api-warn")).toBe("workspaceId and userId are ignored: the API key decides whose memories these are");
    expect((await suite.user.api.get(`/api/v1/memories/${theirs.id}?${scope}`)).status).toBe(404);

    const patched = await suite.user.api.patch(`/api/v1/memories/${created.id}?userId=u-1`, {
      workspaceId: "ws-9",
      userId: other.userId,
      kind: "task",
      ttlMinutes: 5,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.id, type: "task" });
    expect(patched.headers.get("x-api-warn")).toBe(
      "userId and workspaceId are ignored: the API key decides whose memories these are; ttlMinutes is no longer supported " +
        "and ignored; kind is now type",
    );
    expect((await other.api.get(`/api/v1/memories/${created.id}`)).status).toBe(404);
    const replaced = await suite.user.api.put(`/api/v1/memories/${created.id}`, { content: "replaced", kind: "note", ttl_expires_at: "2030-01-01" });
    expect(replaced.body).toMatchObject({ content: "replaced", type: "note" });
    const conflicting = await suite.user.api.patch(`/api/v1/memories/${created.id}`, { kind: "a", type: "b" });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.error.message).toMatch(/kind and type/);
    expect((await suite.user.api.delete(`/api/v1/memories/${created.id}?workspaceId=ws-1`)).headers.get("x-api-warn")).toMatch(/workspaceId is ignored/);
    // current clients see no warning
    expect((await suite.user.api.get(`/api/v1/memories/${theirs.id}`)).headers.get("x-api-warn")).toBeNull();
  });

  it("never shows another user's memories, whatever userId and workspaceId say", async () => {
    const other = await suite.server.newUser();
    await suite.user.api.post("/api/v1/memories", { workspaceId: "shared_ws", userId: "same-legacy-user", content: "mine only" });
    const res = await other.api.get("/api/v1/memories?workspaceId=shared_ws");
    expect(res.body).toMatchObject({ memories: [], total: 0 });
    const posted = await other.api.post("/api/v1/memories", { workspaceId: "shared_ws", userId: "same-legacy-user", content: "theirs" });
    expect(posted.status).toBe(201);
    const mine = await suite.user.api.get("/api/v1/memories?workspaceId=shared_ws");
    expect(mine.body.memories.map((m: { content: string }) => m.content)).toEqual(["mine only"]);
  });

  it("serves the migration guide the Link header points at", async () => {
    const res = await suite.server.client().get("/docs/migration");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.text).toContain("/api/v1/memory");
    expect(res.text).toContain("kind");
  });
});

const SUNSET = Date.parse(DEPRECATION_HEADERS.sunset);
const DAY_BEFORE_SUNSET = new Date(SUNSET - 86_400_000);
const DAY_AFTER_SUNSET = new Date(SUNSET + 86_400_000);

describe.runIf(databaseAgnosticRun())("sunset enforcement (LEGACY_SUNSET_ENFORCE)", () => {
  it("when on, the two legacy routes work until the Sunset date, then answer 410 GONE, still with the headers", async () => {
    let today = DAY_BEFORE_SUNSET;
    const server = await startTestServer({ LEGACY_SUNSET_ENFORCE: "true" }, { now: () => today });
    try {
      const user = await server.newUser();
      expect((await user.api.post("/api/v1/memories", { workspaceId: "w", content: "before" })).status).toBe(201);
      expect((await user.api.get("/api/v1/memories?workspaceId=w")).status).toBe(200);
      today = DAY_AFTER_SUNSET;
      for (const res of [
        await user.api.post("/api/v1/memories", { workspaceId: "w", content: "x" }),
        await user.api.get("/api/v1/memories?workspaceId=w"),
      ]) {
        expect(res.status).toBe(410);
        expect(res.body.error.code).toBe("GONE");
        expect(headersOf(res)).toEqual(DEPRECATION_HEADERS);
      }
      // the record routes are current and stay
      const created = await user.api.post("/api/v1/memory", { content: "still here" });
      expect((await user.api.get(`/api/v1/memories/${created.body.id}`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("is off by default: the routes keep working after the Sunset date", async () => {
    const server = await startTestServer({}, { now: () => DAY_AFTER_SUNSET });
    try {
      const user = await server.newUser();
      expect((await user.api.post("/api/v1/memories", { workspaceId: "w", content: "x" })).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});
