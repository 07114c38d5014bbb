import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, serverProcess } from "../support/child-processes.ts";
import { HttpClient } from "../support/http.ts";
import { callTool, stdioConnection } from "../support/mcp.ts";
import { describeMcpTools } from "../support/mcp-suite.ts";
import { databaseUnavailable, databaseUnderTest, startTestServer, suiteDatabase } from "../support/server.ts";
import { suiteValue } from "../support/suite-value.ts";

// what a `npm run mcp` that opens the database itself needs to behave as the test server does
const CLI_SETTINGS = { EMBEDDER: "hash", LOG_LEVEL: "warn", RATE_LIMIT_MAX: "1000000", AUTH_FAILURE_LIMIT_MAX: "1000000" };

/** A key for `user`, made by the keys CLI on the embedded database in `dir` (through the process holding it, if one does). */
async function desktopKey(dir: string, user: string): Promise<string> {
  const created = await runCli("keys", ["create", "--user", user, "--name", "desktop", "--json"], { DATA_DIR: dir });
  expect(created.code, created.stderr).toBe(0);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

// On the embedded database `npm run mcp` relays to the running server (found through its control socket); on
// PostgreSQL it starts the service itself, on the same database as the test server.
describe.skipIf(databaseUnavailable())("MCP over stdio: npm run mcp", () => {
  const database = suiteDatabase();
  const stdio = stdioConnection(() => ({ ...database.env, ...CLI_SETTINGS }));
  const server = suiteValue("the test server", () => startTestServer(database.env), (started) => started.close());

  describeMcpTools({
    get server() {
      return server();
    },
    connect: stdio.connect,
  });

  it("takes the key from MEMORY_API_KEY as well", async () => {
    const user = await server().newUser();
    const client = await stdio.connectWithEnvKey(user.key);
    try {
      const { body } = await callTool(client, "remember", { content: "Prefers window seats" });
      expect((await user.api.get(`/api/v1/memories/${body.id}`)).body.content).toBe("Prefers window seats");
    } finally {
      await client.close();
    }
  });

  it("without a key, explains its usage on stderr (exit 2) and writes nothing on stdout", async () => {
    const result = await runCli("mcp", [], database.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("MEMORY_API_KEY");
    expect(result.stdout).toBe("");
  });

  it("answers the requests of a client that closes stdin right after writing them (a pipe, a script)", async () => {
    const user = await server().newUser();
    const requests = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } } },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const input = requests.map((request) => `${JSON.stringify(request)}\n`).join("");
    const answered = await runCli("mcp", ["--key", user.key], { ...database.env, ...CLI_SETTINGS }, input);
    expect(answered.code, answered.stderr).toBe(0);
    const answers = answered.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2]);
    expect(answers.every((answer) => answer.result !== undefined)).toBe(true);
    // a wrong key's refusal reaches the client the same way
    const refused = await runCli("mcp", ["--key", "msk_wrong"], { ...database.env, ...CLI_SETTINGS }, input.split("\n")[1]! + "\n");
    expect(JSON.parse(refused.stdout)).toMatchObject({ id: 2, error: { message: expect.stringMatching(/^UNAUTHORIZED/) } });
  });

  it("answers a line that is not one JSON-RPC message (not JSON, a batch) with an error, as /mcp does", async () => {
    const user = await server().newUser();
    const input = `not json\n${JSON.stringify([{ jsonrpc: "2.0", id: 6, method: "ping" }])}\n`;
    const answered = await runCli("mcp", ["--key", user.key], { ...database.env, ...CLI_SETTINGS }, input);
    expect(answered.code, answered.stderr).toBe(0);
    const answers = answered.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: a line that is not JSON" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("batches are not supported") } },
    ]);
  });

  it("wrote nothing but MCP messages on stdout in all of the above", () => {
    expect(stdio.unreadable, stdio.stderr.join("")).toEqual([]);
  });
});

describe.skipIf(databaseUnderTest() !== "pglite")("npm run mcp on the embedded database with no server running", () => {
  const dir = mkdtempSync(join(tmpdir(), "memory-test-"));
  const stdio = stdioConnection(() => ({ DATA_DIR: dir, ...CLI_SETTINGS }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("holds the database itself, and the keys CLI reaches it meanwhile", async () => {
    const client = await stdio.connect(await desktopKey(dir, "solo@example.com"));
    try {
      const { body: memory } = await callTool(client, "remember", { content: "Runs on Tuesdays", type: "observation" });
      expect((await callTool(client, "recall", { query: "Tuesdays" })).body.results[0].id).toBe(memory.id);
      const listed = await runCli("keys", ["list", "--user", "solo@example.com", "--json"], { DATA_DIR: dir });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toHaveLength(1);
    } finally {
      await client.close();
    }
    expect(stdio.unreadable, stdio.stderr.join("")).toEqual([]);
  });

  it("is shared by the relays started next, and taken over by one of them when the relay that held it ends", async () => {
    const key = await desktopKey(dir, "shared@example.com");
    const holder = await stdio.connect(key);
    // two at once: both find the holder's service rather than racing it for the directory
    const relays = await Promise.all([stdio.connect(key), stdio.connect(key)]);
    try {
      const { body: first } = await callTool(relays[0], "remember", { content: "Keeps bees" });
      await holder.close();
      // both notice at once: one takes the directory over, the other relays to it
      const after = await Promise.all(relays.map((relay, n) => callTool(relay, "remember", { content: `Bottled honey in year ${n}` })));
      expect(after.map((answer) => answer.isError)).toEqual([false, false]);
      const { body: found } = await callTool(relays[1], "list_memories", {});
      expect(found.memories.map((memory: { id: string }) => memory.id).sort()).toEqual([first.id, ...after.map((answer) => answer.body.id)].sort());
    } finally {
      await Promise.all(relays.map((relay) => relay.close()));
    }
    expect(stdio.unreadable, stdio.stderr.join("")).toEqual([]);
  });
});

describe.skipIf(databaseUnderTest() !== "pglite")("npm run mcp as the server that holds the embedded database stops", () => {
  const dir = mkdtempSync(join(tmpdir(), "memory-test-"));
  const stdio = stdioConnection(() => ({ DATA_DIR: dir, ...CLI_SETTINGS }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // a relay held the directory for as long as its desktop client stayed open: a server started meanwhile was refused
  // ("in use by process N", at once) (outside probe)
  it("hands the directory over to a server that starts, and relays to it from then on", async () => {
    const key = await desktopKey(dir, "handed@example.com");
    const client = await stdio.connect(key);
    let server: Awaited<ReturnType<typeof serverProcess>> | undefined;
    try {
      const { body: before } = await callTool(client, "remember", { content: "written while the relay held it" });
      server = await serverProcess({ DATA_DIR: dir, ...CLI_SETTINGS, PORT: "0", HOST: "127.0.0.1" });
      const api = new HttpClient(server.url, key);
      expect((await api.get(`/api/v1/memories/${before.id}`)).status).toBe(200);
      const { isError, body: after } = await callTool(client, "remember", { content: "written through the server" });
      expect(isError).toBe(false);
      expect((await api.get(`/api/v1/memories/${after.id}`)).body.content).toBe("written through the server");
    } finally {
      server?.child.kill("SIGTERM");
      await server?.exited;
      await client.close();
    }
  });

  // each call made while the server stopped was answered "The server is starting: it does not listen yet", never
  // carried out, until the relay took the directory over (outside probe)
  it("carries out every call made meanwhile: the relay waits for the server to let the directory go, then holds it", async () => {
    // the default grace (the suite sets none): a connection accepted as the signal came is answered, not closed idle
    const server = await serverProcess({ DATA_DIR: dir, ...CLI_SETTINGS, PORT: "0", HOST: "127.0.0.1", SHUTDOWN_IDLE_GRACE_MS: "1000" });
    const client = await stdio.connect(await desktopKey(dir, "steady@example.com"));
    try {
      expect((await callTool(client, "remember", { content: "before the stop" })).isError).toBe(false);
      server.child.kill("SIGTERM");
      const calls: Promise<{ isError: boolean }>[] = [];
      for (let i = 0; i < 15; i++) {
        calls.push(callTool(client, "remember", { content: `during the stop ${i}` }));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const answers = await Promise.allSettled(calls);
      expect(answers.map((answer) => (answer.status === "fulfilled" ? answer.value.isError : String(answer.reason)))).toEqual(Array(15).fill(false));
      expect(await server.exited).toBe(0);
      const { body } = await callTool(client, "list_memories", { limit: 100 });
      expect(body.memories).toHaveLength(16);
    } finally {
      server.child.kill("SIGKILL");
      await client.close();
    }
  });
});
