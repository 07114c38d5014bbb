import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { callTool, type McpConnect } from "./mcp.ts";
import type { TestServer, TestUser } from "./server.ts";

const MISSING = "00000000-0000-4000-8000-000000000000";

const TOOLS = [
  "remember",
  "recall",
  "search_memories",
  "list_memories",
  "get_memory",
  "update_memory",
  "forget",
  "create_thread",
  "list_threads",
  "get_thread",
  "update_thread",
];

export interface McpSuiteSetup {
  readonly server: TestServer;
  /** Opens a client over the transport under test; the suite closes it. */
  readonly connect: McpConnect;
}

/**
 * What every MCP transport must do, for the acceptance bar of the MCP server: the tools, each run by its REST
 * route's rules for the key's user alone. Call inside a describe, once the setup's server can be read.
 */
export function describeMcpTools(setup: McpSuiteSetup): void {
  const opened: Client[] = [];
  const connect = async (key: string) => {
    const client = await setup.connect(key);
    opened.push(client);
    return client;
  };
  let user: TestUser;
  let client: Client;
  afterAll(() => Promise.all(opened.map((c) => c.close())));
  beforeAll(async () => {
    user = await setup.server.newUser();
    client = await connect(user.key);
  });

  /** How many memories and threads the user has, through REST. */
  const store = async () => ({
    memories: (await user.api.get("/api/v1/memory?limit=100")).body.memories,
    threads: (await user.api.get("/api/v1/threads?limit=100")).body.threads,
  });

  it("lists the eleven tools, each with a description and an object schema of its arguments", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe("object");
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toContain("$ref");
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
    // the bounds the service holds a query to, said to the model (search's schema said none above its minimum)
    const query = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema.properties!.query;
    for (const name of ["recall", "search_memories"]) expect(query(name), name).toMatchObject({ minLength: 1, maxLength: 100_000 });
  });

  it("remember, then recall finds it, in the REST API's JSON", async () => {
    const memory = { content: "I prefer jasmine tea in the morning", type: "preference", tags: ["drinks"] };
    const remembered = await callTool(client, "remember", memory);
    expect(remembered.isError).toBe(false);
    expect(remembered.body).toMatchObject({ ...memory, ok: true });
    const recalled = await callTool(client, "recall", { query: "jasmine tea", limit: 5 });
    expect(recalled.isError).toBe(false);
    expect(recalled.body).toMatchObject({ total: expect.any(Number), query_type: expect.any(String) });
    expect(recalled.body.results[0]).toMatchObject({ id: remembered.body.id, relevance: expect.any(Number) });

    const searched = await callTool(client, "search_memories", { query: "jasmine", tags: ["drinks"], type: "preference" });
    expect(searched.body.results.map((hit: { id: string }) => hit.id)).toContain(remembered.body.id);
  });

  it("update_memory changes the fields given and keeps the others; forget deletes", async () => {
    const record = { dish: "ramen", rating: 5 };
    const { body: memory } = await callTool(client, "remember", { content: record, type: "observation", tags: ["food"] });
    expect(memory.content).toEqual(record);
    const change = { tags: ["food", "favourite"], metadata: { source: "mcp" } };
    const updated = await callTool(client, "update_memory", { id: memory.id, ...change });
    expect(updated.isError).toBe(false);
    expect(updated.body).toMatchObject({ id: memory.id, content: record, type: "observation", ...change });
    expect((await callTool(client, "get_memory", { id: memory.id })).body).toEqual(updated.body);

    expect(await callTool(client, "forget", { id: memory.id })).toEqual({ isError: false, body: { ok: true } });
    expect(await callTool(client, "get_memory", { id: memory.id })).toEqual({
      isError: true,
      body: { error: { code: "NOT_FOUND", message: "Memory not found" } },
    });
  });

  it("threads: create, file a memory under it, list, read with its memories, update, recall within it", async () => {
    const { body: thread } = await callTool(client, "create_thread", { title: "Trip to Porto", description: "planning" });
    expect(thread).toMatchObject({ title: "Trip to Porto", status: "active", memory_count: 0 });
    const { body: memory } = await callTool(client, "remember", { content: "Book the train to Porto", type: "task", thread_id: thread.id });
    expect(memory.thread_id).toBe(thread.id);

    const listed = await callTool(client, "list_threads", { status: "active" });
    expect(listed.body.threads.map((t: { id: string }) => t.id)).toContain(thread.id);
    const read = await callTool(client, "get_thread", { id: thread.id, include_memories: true });
    expect(read.body.thread).toMatchObject({ id: thread.id, memory_count: 1, memories: [{ id: memory.id }] });
    const updated = await callTool(client, "update_thread", { id: thread.id, status: "completed" });
    expect(updated.body).toMatchObject({ id: thread.id, status: "completed", title: "Trip to Porto" });

    const recalled = await callTool(client, "recall", { query: "train", thread_id: thread.id });
    expect(recalled.body).toMatchObject({ query_type: "thread", results: [{ id: memory.id }] });
    const inThread = await callTool(client, "list_memories", { thread_id: thread.id });
    expect(inThread.body).toMatchObject({ total: 1, memories: [{ id: memory.id }] });
  });

  it("pages list_memories by the next_cursor it gives", async () => {
    const pager = await setup.server.newUser();
    const pagerClient = await connect(pager.key);
    await pager.api.post("/api/v1/memory/batch", Array.from({ length: 5 }, (_, i) => ({ content: `paged ${i}` })));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { isError, body } = await callTool(pagerClient, "list_memories", { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(isError, JSON.stringify(body)).toBe(false);
      seen.push(...body.memories.map((m: { id: string }) => m.id));
      cursor = body.next_cursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(5);
    expect(seen).toHaveLength(5);
  });

  it("another user's memory or thread id is, through every tool that takes one, exactly a missing id", async () => {
    const owner = await setup.server.newUser();
    const memory = (await owner.api.post("/api/v1/memory", { content: "the owner's secret", tags: ["private"] })).body;
    const thread = (await owner.api.post("/api/v1/threads", { title: "the owner's thread" })).body;
    const attempts: [string, Record<string, unknown>, string][] = [
      ["get_memory", {}, memory.id],
      ["update_memory", { content: "hijacked" }, memory.id],
      ["forget", {}, memory.id],
      ["get_thread", { include_memories: true }, thread.id],
      ["update_thread", { title: "hijacked" }, thread.id],
    ];
    for (const [tool, args, id] of attempts) {
      const theirs = await callTool(client, tool, { ...args, id });
      const missing = await callTool(client, tool, { ...args, id: MISSING });
      expect(theirs.isError, tool).toBe(true);
      expect(theirs, tool).toEqual(missing);
    }
    const read = (uri: string) => client.readResource({ uri }).then(() => "read", (error: Error) => error.message);
    expect(await read(`memory://${memory.id}`)).toBe(await read(`memory://${MISSING}`));
    const recalled = await callTool(client, "recall", { query: "the owner's secret" });
    expect(JSON.stringify(recalled.body)).not.toContain("secret");

    const { ok: _ok, ...stored } = memory;
    expect((await owner.api.get(`/api/v1/memories/${memory.id}`)).body).toEqual(stored);
    expect((await owner.api.get(`/api/v1/threads/${thread.id}`)).body.thread.title).toBe("the owner's thread");
  });

  it("bad input is a tool error with VALIDATION_ERROR, and the store is left as it was", async () => {
    const before = await store();
    const cases: [string, Record<string, unknown>, string][] = [
      ["remember", { content: "" }, "content must not be empty"],
      ["remember", { content: "x", tags: "drinks" }, "tags must be a list of strings"],
      ["remember", { content: "x", thread_id: MISSING }, "thread_id"],
      ["remember", { content: "x", colour: "red" }, "colour is not an argument of remember"],
      // as JSON carries it: a key of its own, which the SDK's own parse of the arguments dropped
      ["remember", JSON.parse('{"content":"x","__proto__":{"type":"task"}}'), "__proto__ is not an argument of remember"],
      ["recall", { query: "tea", limit: 500 }, "limit must be"],
      ["list_memories", { limit: "5" }, "limit must be a whole number"],
      ["search_memories", { query: "tea", from_date: "yesterday" }, "from_date"],
      ["update_memory", { id: before.memories[0].id, content: null }, "content"],
      ["update_memory", { content: "x" }, "id is required"],
      ["create_thread", { title: "  " }, "title"],
      ["update_thread", { id: before.threads[0].id, status: "paused" }, "status must be one of"],
    ];
    for (const [tool, args, message] of cases) {
      const answer = await callTool(client, tool, args);
      expect(answer.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(answer.body.error.code, `${tool} ${JSON.stringify(args)}`).toBe("VALIDATION_ERROR");
      expect(answer.body.error.message).toContain(message);
    }
    expect(await store()).toEqual(before);
  });

  it("a bad key is refused (401) before any tool runs", async () => {
    await expect(connect(`${user.key}x`)).rejects.toThrow(/UNAUTHORIZED/);
  });

  it("a revoked key fails on the very next call", async () => {
    const victim = await setup.server.newUser();
    const victimClient = await connect(victim.key);
    expect((await callTool(victimClient, "list_memories")).isError).toBe(false);
    const revoked = await victim.api.graphql(`mutation ($id: ID!) { revokeApiKey(id: $id) { revoked } }`, { id: victim.keyId });
    expect(revoked.body.data?.revokeApiKey).toEqual({ revoked: true });
    await expect(callTool(victimClient, "list_memories")).rejects.toThrow(/UNAUTHORIZED/);
  });
}
