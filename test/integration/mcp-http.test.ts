import { describe, expect, it } from "vitest";
import type { OpenApiDocument } from "../../src/rest/openapi/types.ts";
import { callTool, httpConnect } from "../support/mcp.ts";
import { describeMcpTools } from "../support/mcp-suite.ts";
import { databaseUnavailable, serverWithUser, startTestServer } from "../support/server.ts";

const LIST_TOOLS = { jsonrpc: "2.0", id: 1, method: "tools/list" };
// what the Streamable HTTP transport asks every POST to accept
const ACCEPT = { accept: "application/json, text/event-stream" };

describe.skipIf(databaseUnavailable())("MCP over Streamable HTTP at /mcp", () => {
  const setup = serverWithUser();
  const connect = (key: string) => httpConnect(setup.server.url)(key);

  describeMcpTools({
    get server() {
      return setup.server;
    },
    connect,
  });

  describe("the endpoint", () => {
    it("answers 401 UNAUTHORIZED before any MCP processing when the key is missing or wrong", async () => {
      for (const key of [undefined, "msk_not-a-key"]) {
        const res = await setup.server.client(key).post("/mcp", LIST_TOOLS, { headers: ACCEPT });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("UNAUTHORIZED");
        expect(res.body.jsonrpc).toBeUndefined();
      }
    });

    it("takes the key as x-service-api-key too", async () => {
      const headers = { ...ACCEPT, "x-service-api-key": setup.user.key };
      const res = await setup.server.client().post("/mcp", LIST_TOOLS, { headers });
      expect(res.status).toBe(200);
      expect(res.body.result.tools).toHaveLength(11);
    });

    it("answers GET and DELETE with 405: stateless, it has no stream to open or end", async () => {
      for (const method of ["GET", "DELETE"]) {
        const res = await setup.user.api.request(method, "/mcp", { headers: ACCEPT });
        expect(res.status).toBe(405);
        expect(res.headers.get("allow")).toBe("POST");
      }
    });

    it("counts every MCP call on the key's rate-limit counter, with REST's", async () => {
      const remaining = (res: { headers: Headers }) => Number(res.headers.get("x-ratelimit-remaining"));
      const first = remaining(await setup.user.api.get("/api/v1/memory"));
      const call = { ...LIST_TOOLS, method: "tools/call", params: { name: "list_memories", arguments: {} } };
      const mcp = await setup.user.api.post("/mcp", call, { headers: ACCEPT });
      expect(mcp.status).toBe(200);
      expect(remaining(mcp)).toBe(first - 1);
      expect(remaining(await setup.user.api.get("/api/v1/memory"))).toBe(first - 2);
    });

    it("refuses a JSON-RPC batch (an array of tool calls), which the rate limit would count as one request", async () => {
      const remember = (i: number) => ({
        jsonrpc: "2.0",
        id: i,
        method: "tools/call",
        params: { name: "remember", arguments: { content: `batched ${i}`, tags: ["batched"] } },
      });
      const res = await setup.user.api.post("/mcp", [remember(1), remember(2), remember(3)], { headers: ACCEPT });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/one message per request/) } });
      expect((await setup.user.api.get("/api/v1/memory?tags=batched")).body.total).toBe(0);
    });

    it("lets browsers on an allowed origin send MCP's headers (CORS preflight)", async () => {
      const server = await startTestServer({ CORS_ORIGINS: "https://agent.example" });
      try {
        const res = await server.client().request("OPTIONS", "/mcp", {
          headers: {
            origin: "https://agent.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
          },
        });
        expect(res.status).toBe(204);
        expect(res.headers.get("access-control-allow-headers")?.toLowerCase().split(/,\s*/)).toEqual(
          expect.arrayContaining(["authorization", "content-type", "mcp-protocol-version"]),
        );
      } finally {
        await server.close();
      }
    });

    it("refuses tool arguments that are not an object with -32602, saying so in a sentence", async () => {
      for (const args of [[], "content", 7]) {
        const call = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "remember", arguments: args } };
        const res = await setup.user.api.post("/mcp", call, { headers: ACCEPT });
        expect(res.body.error, JSON.stringify(args)).toEqual({ code: -32602, message: "arguments must be a JSON object holding the tool's arguments by name" });
      }
    });

    // the SDK's McpError wrote "MCP error <code>: " into the message, and its client wrote it again (outside probe)
    it("sends its errors' messages as written: an unknown tool, a memory:// that does not exist", async () => {
      const rpc = async (method: string, params: object) => (await setup.user.api.post("/mcp", { jsonrpc: "2.0", id: 4, method, params }, { headers: ACCEPT })).body;
      expect((await rpc("tools/call", { name: "nope", arguments: {} })).error).toEqual({ code: -32602, message: "There is no tool nope" });
      const missing = await rpc("resources/read", { uri: "memory://00000000-0000-4000-8000-000000000000" });
      expect(missing.error.code).toBe(-32002);
      expect(JSON.parse(missing.error.message).error.code).toBe("NOT_FOUND");
    });

    // the SDK declared listChanged for tools, resources and prompts: a promise of notifications never sent (outside probe)
    it("promises no list-changed notifications at the handshake: its lists never change", async () => {
      const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
      const res = await setup.user.api.post("/mcp", initialize, { headers: ACCEPT });
      expect(res.body.result.capabilities).toEqual({ tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });
    });

    it("refuses a body over MAX_BODY_BYTES with 413, before it reaches MCP", async () => {
      const content = "x".repeat(3 * 1024 * 1024);
      const huge = { ...LIST_TOOLS, method: "tools/call", params: { name: "remember", arguments: { content } } };
      const res = await setup.user.api.post("/mcp", huge, { headers: ACCEPT });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    });
  });

  describe("the same services as REST and GraphQL", () => {
    it("what MCP writes, REST and GraphQL read as it is, and the other way round", async () => {
      const client = await connect(setup.user.key);
      try {
        const written = { content: "Allergic to peanuts", type: "observation", tags: ["health"] };
        const { body: viaMcp } = await callTool(client, "remember", written);
        const { ok: _ok, ...stored } = viaMcp;
        expect((await setup.user.api.get(`/api/v1/memories/${viaMcp.id}`)).body).toEqual(stored);
        const gql = await setup.user.api.graphql(`query ($id: ID!) { memory(id: $id) { content tags type } }`, { id: viaMcp.id });
        expect(gql.body.data.memory).toEqual(written);

        const viaRest = (await setup.user.api.post("/api/v1/memory", { content: "Lives in Lisbon", tags: ["home"] })).body;
        const { ok: _restOk, ...restStored } = viaRest;
        expect((await callTool(client, "get_memory", { id: viaRest.id })).body).toEqual(restStored);
        const threadViaGraphql = await setup.user.api.graphql(`mutation { createThread(input: { title: "Garden" }) { id } }`);
        const threadId = threadViaGraphql.body.data.createThread.id;
        await callTool(client, "update_memory", { id: viaRest.id, thread_id: threadId });
        expect((await setup.user.api.get(`/api/v1/threads/${threadId}?include_memories=true`)).body).toEqual(
          (await callTool(client, "get_thread", { id: threadId, include_memories: true })).body,
        );
        const listed = await callTool(client, "list_memories", { tags: ["home"] });
        expect(listed.body).toEqual((await setup.user.api.get("/api/v1/memory?tags=home")).body);
      } finally {
        await client.close();
      }
    });
  });

  describe("resources, prompts and documentation", () => {
    it("memory://{id} reads a memory as get_memory gives it", async () => {
      const client = await connect(setup.user.key);
      try {
        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: "memory://{id}", mimeType: "application/json" })]);
        const { body: memory } = await callTool(client, "remember", { content: "Has a cat named Miso" });
        const read = await client.readResource({ uri: `memory://${memory.id}` });
        const [content] = read.contents as { text: string; mimeType: string }[];
        expect(content!.mimeType).toBe("application/json");
        expect(JSON.parse(content!.text)).toEqual((await callTool(client, "get_memory", { id: memory.id })).body);
        await expect(client.readResource({ uri: "memory://00000000-0000-4000-8000-000000000000" })).rejects.toThrow(/NOT_FOUND/);
        // a resource or prompt that is not there: MCP's codes, and the client's one "MCP error" prefix (it came twice)
        const refused = (promise: Promise<unknown>) => promise.then(() => undefined, (error: { code: number; message: string }) => error);
        expect(await refused(client.readResource({ uri: "file:///etc/passwd" }))).toMatchObject({
          code: -32002,
          message: "MCP error -32002: There is no resource file:///etc/passwd: a memory is memory://{id}",
        });
        expect(await refused(client.getPrompt({ name: "nope" }))).toMatchObject({
          code: -32602,
          message: "MCP error -32602: There is no prompt nope (the one prompt: memory_guide)",
        });
      } finally {
        await client.close();
      }
    });

    it("the memory_guide prompt and the handshake's instructions say when to remember and when to recall", async () => {
      const client = await connect(setup.user.key);
      try {
        const { prompts } = await client.listPrompts();
        expect(prompts.map((prompt) => prompt.name)).toEqual(["memory_guide"]);
        const { messages } = await client.getPrompt({ name: "memory_guide" });
        const text = (messages[0]!.content as { text: string }).text;
        expect(text).toContain("`remember`");
        expect(text).toContain("`recall`");
        expect(client.getInstructions()).toBe(text);
      } finally {
        await client.close();
      }
    });

    it("the API reference (/openapi.json, shown at /docs) lists every tool with its arguments, linked to the REST operation it runs", async () => {
      const { description } = ((await setup.server.client().get("/openapi.json")).body as OpenApiDocument).info;
      expect(description).toContain("\n## MCP tools\n");
      for (const tool of ["remember", "recall", "search_memories", "list_memories", "get_memory", "update_memory", "forget"]) {
        expect(description).toContain(`\n### ${tool}\n`);
      }
      expect(description).toMatch(
        /### remember\n[^#]*Runs \[POST \/api\/v1\/memory\]\(#tag\/memories\/POST\/api\/v1\/memory\) \(`createMemory`\)[^#]*\n- `content` \(string or object, required\): /,
      );
    });
  });
});
