import { createServer as createTcpServer } from "node:net";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  MemoryClient,
  MemoryServiceError,
  type MemoryClientHooks,
  type MemoryClientOptions,
  type Memory,
} from "../../src/client/index.ts";
import { newRecordId } from "../../src/client/ids.ts";
import { backoffMs, serverWaitMs } from "../../src/client/retry-delay.ts";
import { rejection } from "../support/rejection.ts";

// The client against a scripted stand-in for the service: a real HTTP server on a loopback port whose
// answers each test sets, and which records every request it sees.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage["headers"];
  body: unknown;
}

type Handler = (seen: Seen, res: ServerResponse, req: IncomingMessage) => void;

class FakeService {
  readonly seen: Seen[] = [];
  handler: Handler = (_seen, res) => send(res, 500, { error: { code: "INTERNAL", message: "no handler" } });

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeService> {
    let service: FakeService | undefined;
    const server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (raw += chunk));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://localhost");
        const seen: Seen = {
          method: req.method ?? "",
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body: raw ? JSON.parse(raw) : undefined,
        };
        service!.seen.push(seen);
        // every response of the real service carries the request id: the caller's when it sent one
        res.setHeader("x-request-id", (req.headers["x-request-id"] as string | undefined) ?? "server-made-id");
        service!.handler(seen, res, req);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    service = new FakeService(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return service;
  }

  /** Answers the requests in turn with these handlers; the last one answers every request after. */
  script(...handlers: Handler[]): void {
    let next = 0;
    this.handler = (seen, res, req) => handlers[Math.min(next++, handlers.length - 1)]!(seen, res, req);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

const answer =
  (status: number, body: unknown, headers?: Record<string, string>): Handler =>
  (_seen, res) =>
    send(res, status, body, headers);
const failWith = (status: number, code: string, headers?: Record<string, string>): Handler =>
  answer(status, { error: { code, message: `${code} happened` } }, headers);
/** Reads the request, then drops the connection without a word: the response is lost. */
const cut: Handler = (_seen, _res, req) => req.socket.destroy();
/** Never answers. */
const stall: Handler = () => {};

function memory(overrides: Partial<Memory> = {}): Memory {
  return {
    id: "9b2f3c1e-0000-4000-8000-000000000001",
    content: "I prefer tea",
    type: "preference",
    tags: ["drinks"],
    metadata: {},
    thread_id: null,
    expires_at: null,
    is_archived: false,
    created_at: "2025-01-01T00:00:00.000Z",
    updated_at: "2025-01-01T00:00:00.000Z",
    ...overrides,
  };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Records every hook call in order, as `name:attempt`. */
function recordingHooks() {
  const log: string[] = [];
  const events: Record<"onRequest" | "onResponse" | "onRetry" | "onError", unknown[]> = {
    onRequest: [],
    onResponse: [],
    onRetry: [],
    onError: [],
  };
  const hooks: Required<MemoryClientHooks> = {
    onRequest(event) {
      log.push(`request:${event.attempt}`);
      events.onRequest.push(event);
    },
    onResponse(event) {
      log.push(`response:${event.attempt}:${event.status}`);
      events.onResponse.push(event);
    },
    onRetry(event) {
      log.push(`retry:${event.attempt}`);
      events.onRetry.push(event);
    },
    onError(event) {
      log.push(`error:${event.attempt}:${event.error.code}`);
      events.onError.push(event);
    },
  };
  return { hooks, log, events };
}

/** Two identical creates, each of which must send an Idempotency-Key of its own. */
async function expectAKeyPerCreate(): Promise<void> {
  service.script(answer(201, { ...memory(), ok: true }));
  await client.memories.create({ content: "a" });
  await client.memories.create({ content: "a" });
  const [first, second] = service.seen.map((seen) => seen.headers["idempotency-key"]);
  expect(first).toMatch(UUID);
  expect(second).toMatch(UUID);
  expect(first).not.toBe(second);
}

let service: FakeService;
let client: MemoryClient;
const makeClient = (options: Partial<MemoryClientOptions> = {}) =>
  new MemoryClient({ apiKey: "mem_test_key", baseUrl: service.url, retryDelay: 5, timeoutMs: 2000, ...options });

beforeEach(async () => {
  service = await FakeService.start();
  client = makeClient();
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  await service.close();
});

describe("new MemoryClient", () => {
  it("throws INVALID_API_KEY at construction without an API key", () => {
    for (const apiKey of [undefined, "", "  "]) {
      const create = () => new MemoryClient({ apiKey, baseUrl: service.url } as MemoryClientOptions);
      expect(create).toThrow(MemoryServiceError);
      expect(create).toThrow(expect.objectContaining({ code: "INVALID_API_KEY", attempts: 0 }));
    }
  });

  it("rejects a baseUrl that is not an absolute http(s) URL, and nonsensical numbers", () => {
    for (const baseUrl of [undefined, "", "localhost:4000", "ftp://host", "/api"]) {
      expect(() => new MemoryClient({ apiKey: "k", baseUrl } as MemoryClientOptions)).toThrow(TypeError);
    }
    expect(() => makeClient({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => makeClient({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => makeClient({ maxRetries: 1.5 })).toThrow(/maxRetries/);
    expect(() => makeClient({ retryDelay: Number.NaN })).toThrow(/retryDelay/);
  });

  it("sends the key as Authorization: Bearer, asks for JSON and tags each attempt with an X-Request-Id", async () => {
    service.script(answer(200, memory()));
    await client.memories.get("m1");
    const [seen] = service.seen;
    expect(seen!.headers.authorization).toBe("Bearer mem_test_key");
    expect(seen!.headers.accept).toBe("application/json");
    expect(seen!.headers["x-request-id"]).toMatch(UUID);
    expect(seen!.headers["content-type"]).toBeUndefined(); // no body, no content type
    expect(seen!.headers["idempotency-key"]).toBeUndefined(); // only creates carry one
  });

  it("keeps a path prefix of the baseUrl and ignores a trailing slash", async () => {
    service.script(answer(200, memory()));
    await makeClient({ baseUrl: `${service.url}/memory-service/` }).memories.get("m1");
    expect(service.seen[0]!.path).toBe("/memory-service/api/v1/memories/m1");
  });

  it("uses the fetch it is given", async () => {
    const calls: string[] = [];
    const fetch = (url: string, init: RequestInit) => {
      calls.push(`${init.method} ${url}`);
      return Promise.resolve(Response.json(memory()));
    };
    await new MemoryClient({ apiKey: "k", baseUrl: "https://memory.example", fetch }).memories.get("m1");
    expect(calls).toEqual(["GET https://memory.example/api/v1/memories/m1"]);
  });
});

describe("memories.create", () => {
  it("POSTs /api/v1/memory with the fields in snake_case and returns the 201 body", async () => {
    const created = { ...memory({ thread_id: "t1", metadata: { source: "chat" } }), ok: true };
    service.script(answer(201, created));
    const result = await client.memories.create({
      content: "I prefer tea",
      type: "preference",
      tags: ["drinks"],
      metadata: { source: "chat" },
      thread_id: "t1",
    });
    expect(result).toEqual(created);
    const [seen] = service.seen;
    expect(seen).toMatchObject({ method: "POST", path: "/api/v1/memory", query: {} });
    expect(seen!.headers["content-type"]).toBe("application/json");
    expect(seen!.body).toEqual({
      content: "I prefer tea",
      type: "preference",
      tags: ["drinks"],
      metadata: { source: "chat" },
      thread_id: "t1",
    });
  });

  it("sends an object given as data under content", async () => {
    const record = { dish: "ramen", rating: 5 };
    service.script(answer(201, { ...memory({ content: record }), ok: true }));
    const result = await client.memories.create({ data: record, type: "observation" });
    expect(service.seen[0]!.body).toEqual({ content: record, type: "observation" });
    expect(result.content).toEqual(record);
  });

  it("also takes an object as content", async () => {
    service.script(answer(201, { ...memory({ content: { a: 1 } }), ok: true }));
    await client.memories.create({ content: { a: 1 } });
    expect(service.seen[0]!.body).toEqual({ content: { a: 1 } });
  });

  it("rejects content and data together without sending anything", async () => {
    const input = { content: "x", data: { a: 1 } } as unknown as Parameters<typeof client.memories.create>[0];
    const error = await rejection(client.memories.create(input));
    expect(error).toMatchObject({ code: "VALIDATION_ERROR", attempts: 0, status: undefined });
    expect(service.seen).toHaveLength(0);
  });

  it("sends an Idempotency-Key, a new one for each call", async () => {
    await expectAKeyPerCreate();
  });

  it("names an import's records that lack an id with increasing v7 UUIDs, as the server would", () => {
    const ids = Array.from({ length: 5000 }, () => newRecordId(1_700_000_000_000));
    for (const id of ids) expect(id).toMatch(/^018bcfe5-6800-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$|^018bcfe5-6801-7/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("makes its keys with Math.random where crypto.randomUUID is missing (e.g. a page not on HTTPS)", async () => {
    vi.stubGlobal("crypto", {});
    await expectAKeyPerCreate();
    expect(service.seen[0]!.headers["x-request-id"]).toMatch(UUID);
  });

  it("reuses the Idempotency-Key and the body when it retries a create whose response was lost", async () => {
    const stored = { ...memory(), ok: true };
    service.script(cut, answer(201, stored));
    const { hooks, log } = recordingHooks();
    const result = await makeClient({ hooks }).memories.create({ content: "I prefer tea" });
    expect(result).toEqual(stored);
    expect(service.seen).toHaveLength(2);
    const [first, second] = service.seen;
    expect(second!.headers["idempotency-key"]).toBe(first!.headers["idempotency-key"]);
    expect(second!.body).toEqual(first!.body);
    // each attempt has its own request id, though
    expect(second!.headers["x-request-id"]).not.toBe(first!.headers["x-request-id"]);
    expect(log).toEqual(["request:1", "error:1:NETWORK_ERROR", "retry:1", "request:2", "response:2:201"]);
  });
});

describe("memories.get, update, replace, delete", () => {
  it("get: GET /api/v1/memories/{id}, the id encoded", async () => {
    service.script(answer(200, memory({ id: "a/b c" })));
    expect(await client.memories.get("a/b c")).toEqual(memory({ id: "a/b c" }));
    expect(service.seen[0]).toMatchObject({ method: "GET", path: "/api/v1/memories/a%2Fb%20c", body: undefined });
  });

  // an empty id named the collection: GET /api/v1/threads/ answered a list, typed as a thread (helper-26)
  it("refuses an empty id before sending anything, for memories and threads alike", async () => {
    for (const call of [
      () => client.memories.get(""),
      () => client.memories.update("", { content: "x" }),
      () => client.memories.delete(""),
      () => client.threads.get(""),
      () => client.threads.delete(""),
    ]) {
      expect(await rejection(call())).toMatchObject({ code: "VALIDATION_ERROR", message: "id must not be empty", attempts: 0 });
    }
    expect(service.seen).toEqual([]);
  });

  it("update: PATCH with only the fields given, null clearing one, data sent as content", async () => {
    service.script(answer(200, memory({ type: null, is_archived: true })));
    const result = await client.memories.update("m1", { type: null, is_archived: true, data: { k: 1 } });
    expect(result).toMatchObject({ type: null, is_archived: true });
    expect(service.seen[0]).toMatchObject({
      method: "PATCH",
      path: "/api/v1/memories/m1",
      body: { type: null, is_archived: true, content: { k: 1 } },
    });
  });

  it("replace: PUT with the whole memory", async () => {
    service.script(answer(200, memory({ content: "replaced", tags: [] })));
    const result = await client.memories.replace("m1", { content: "replaced", tags: [], thread_id: null });
    expect(result.content).toBe("replaced");
    expect(service.seen[0]).toMatchObject({
      method: "PUT",
      path: "/api/v1/memories/m1",
      body: { content: "replaced", tags: [], thread_id: null },
    });
  });

  it("delete: DELETE, resolving with nothing", async () => {
    service.script(answer(200, { ok: true }));
    expect(await client.memories.delete("m1")).toBeUndefined();
    expect(service.seen[0]).toMatchObject({ method: "DELETE", path: "/api/v1/memories/m1" });
  });

  it("passes the server's error code through: NOT_FOUND, VALIDATION_ERROR", async () => {
    service.script(failWith(404, "NOT_FOUND"), failWith(400, "VALIDATION_ERROR"));
    const missing = await rejection(client.memories.get("nope"));
    expect(missing).toMatchObject({ code: "NOT_FOUND", status: 404, message: "NOT_FOUND happened", attempts: 1 });
    expect(missing.requestId).toBe(service.seen[0]!.headers["x-request-id"]);
    const invalid = await rejection(client.memories.replace("m1", { content: "" }));
    expect(invalid).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
  });
});

describe("memories.list", () => {
  /** A list route over `count` memories that pages like the real one. */
  const pagedList =
    (count: number): Handler =>
    (seen, res) => {
      const limit = Number(seen.query.limit ?? 20);
      const offset = Number(seen.query.offset ?? 0);
      const memories = Array.from({ length: Math.max(0, Math.min(limit, count - offset)) }, (_, i) =>
        memory({ id: `m${offset + i}` }),
      );
      send(res, 200, { memories, total: count, limit, offset, has_more: offset + memories.length < count });
    };

  it("sends every filter in the query string: tags comma-separated, booleans as true/false", async () => {
    service.script(pagedList(0));
    await client.memories.list({
      limit: 50,
      offset: 10,
      type: "task",
      tags: ["a", "b"],
      thread_id: "t1",
      is_archived: false,
    });
    expect(service.seen[0]).toMatchObject({
      method: "GET",
      path: "/api/v1/memory",
      query: { limit: "50", offset: "10", type: "task", tags: "a,b", thread_id: "t1", is_archived: "false" },
    });
  });

  it("leaves out what is not given, and an empty tag list", async () => {
    service.script(pagedList(0));
    await client.memories.list();
    await client.memories.list({ tags: [], type: undefined });
    expect(service.seen.map((seen) => seen.query)).toEqual([{}, {}]);
  });

  it("awaited, resolves with one page as the server sends it", async () => {
    service.script(pagedList(30));
    const page = await client.memories.list({ limit: 10 });
    expect(page).toMatchObject({ total: 30, limit: 10, offset: 0, has_more: true });
    expect(page.memories.map((m) => m.id)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect(service.seen).toHaveLength(1);
  });

  it("iterated with for await, yields every memory across the pages, in order", async () => {
    service.script(pagedList(25));
    const ids: string[] = [];
    for await (const item of client.memories.list({ limit: 10, type: "task" })) ids.push(item.id);
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => `m${i}`));
    expect(service.seen.map((seen) => seen.query)).toEqual([
      { limit: "10", type: "task" },
      { limit: "10", type: "task", offset: "10" },
      { limit: "10", type: "task", offset: "20" },
    ]);
  });

  it("sends filter as JSON, and walks by next_cursor where the server gives one", async () => {
    service.script((seen, res) => {
      const second = seen.query.cursor === "c1";
      const memories = [memory({ id: second ? "m1" : "m0" })];
      send(res, 200, { memories, total: 2, limit: 1, offset: second ? null : 0, has_more: !second, next_cursor: second ? null : "c1" });
    });
    const ids: string[] = [];
    for await (const item of client.memories.list({ limit: 1, filter: { or: [{ type: "task" }, { metadata: [{ path: "p", eq: 1 }] }] } })) {
      ids.push(item.id);
    }
    expect(ids).toEqual(["m0", "m1"]);
    const filter = JSON.stringify({ or: [{ type: "task" }, { metadata: [{ path: "p", eq: 1 }] }] });
    expect(service.seen.map((seen) => seen.query)).toEqual([
      { limit: "1", filter },
      { limit: "1", filter, cursor: "c1" },
    ]);
  });

  it("pages() yields each page, starting at the offset given", async () => {
    service.script(pagedList(25));
    const offsets: (number | null)[] = [];
    for await (const page of client.memories.list({ limit: 10, offset: 5 }).pages()) offsets.push(page.offset);
    expect(offsets).toEqual([5, 15]);
  });

  it("fetches the first page once when it is awaited and then iterated", async () => {
    service.script(pagedList(15));
    const request = client.memories.list({ limit: 10 });
    expect((await request).memories).toHaveLength(10);
    let count = 0;
    for await (const _ of request) count++;
    expect(count).toBe(15);
    expect(service.seen).toHaveLength(2);
  });

  it("sends nothing until awaited or iterated", async () => {
    service.script(pagedList(5));
    client.memories.list();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(service.seen).toHaveLength(0);
  });

  it("stops at an empty page even if the server says has_more", async () => {
    service.script(answer(200, { memories: [], total: 3, limit: 20, offset: 0, has_more: true }));
    const items: Memory[] = [];
    for await (const item of client.memories.list()) items.push(item);
    expect(items).toEqual([]);
    expect(service.seen).toHaveLength(1);
  });

  it("supports .catch and .finally like a promise", async () => {
    service.script(failWith(400, "VALIDATION_ERROR"));
    let settled = false;
    const code = await client.memories
      .list({ limit: 1000 })
      .finally(() => (settled = true))
      .catch((error: MemoryServiceError) => error.code);
    expect(code).toBe("VALIDATION_ERROR");
    expect(settled).toBe(true);
  });
});

describe("memories.search", () => {
  it("POSTs /api/v1/memory/search with every parameter, the simple ones in the filter; dates as ISO 8601", async () => {
    service.script(answer(200, { results: [], total: 0 }));
    await client.memories.search({
      query: "what do I drink?",
      limit: 5,
      type: "preference",
      tags: ["drinks", "morning"],
      from_date: new Date("2025-01-01T00:00:00Z"),
      to_date: "2025-02-01T00:00:00.000Z",
    });
    expect(service.seen[0]).toMatchObject({
      method: "POST",
      path: "/api/v1/memory/search",
      body: {
        query: "what do I drink?",
        limit: 5,
        filter: { type: "preference", tags: ["drinks", "morning"], from_date: "2025-01-01T00:00:00.000Z", to_date: "2025-02-01T00:00:00.000Z" },
      },
    });
  });

  it("exposes each result's score as relevance_score too, keeping the other fields", async () => {
    const hit = { id: "m1", content: "tea", type: "preference", score: 0.87, tags: ["drinks"] };
    service.script(answer(200, { results: [hit], total: 1 }));
    const response = await client.memories.search({ query: "tea" });
    expect(response).toEqual({ results: [{ ...hit, relevance_score: 0.87 }], total: 1 });
  });
});

describe("memories.recall", () => {
  it("POSTs /api/v1/memory/recall and exposes relevance as relevance_score", async () => {
    const hit = { id: "m1", content: "tea", type: "preference", relevance: 0.9 };
    service.script(answer(200, { results: [hit], total: 1, query_type: "hybrid" }));
    const response = await client.memories.recall({ query: "what do I like?", limit: 3, thread_id: "t1" });
    expect(response).toEqual({ results: [{ ...hit, relevance_score: 0.9 }], total: 1, query_type: "hybrid" });
    expect(service.seen[0]).toMatchObject({
      method: "POST",
      path: "/api/v1/memory/recall",
      body: { query: "what do I like?", limit: 3, thread_id: "t1" },
    });
    // recall reads; it stores nothing, so it needs no idempotency key
    expect(service.seen[0]!.headers["idempotency-key"]).toBeUndefined();
  });
});

describe("memories.batchCreate", () => {
  /** A batch route that stores every item whose content is not "bad". */
  const batchRoute: Handler = (seen, res) => {
    const items = (seen.body as { memories: { content: unknown }[] }).memories;
    const results = items.map((item) =>
      item.content === "bad"
        ? { success: false, error: { code: "VALIDATION_ERROR", message: "content is bad" } }
        : { success: true, id: `id-${String(item.content)}` },
    );
    const successful = results.filter((result) => result.success).length;
    send(res, 200, { summary: { total: items.length, successful, failed: items.length - successful }, results });
  };

  it("sends up to 100 items as {memories: [...]} to /api/v1/memory/batch", async () => {
    service.script(batchRoute);
    const result = await client.memories.batchCreate([
      { content: "a", tags: ["x"], thread_id: "t1" },
      { data: { k: 1 }, type: "observation" },
    ]);
    expect(service.seen).toHaveLength(1);
    expect(service.seen[0]).toMatchObject({
      method: "POST",
      path: "/api/v1/memory/batch",
      body: { memories: [{ content: "a", tags: ["x"], thread_id: "t1" }, { content: { k: 1 }, type: "observation" }] },
    });
    expect(service.seen[0]!.headers["idempotency-key"]).toMatch(UUID);
    expect(result.summary).toEqual({ total: 2, successful: 2, failed: 0 });
  });

  it("splits 250 items into requests of 100, 100 and 50 and merges the results in input order", async () => {
    service.script(batchRoute);
    const inputs = Array.from({ length: 250 }, (_, i) => ({ content: i === 120 ? "bad" : `n${i}` }));
    const result = await client.memories.batchCreate(inputs);
    expect(service.seen.map((seen) => (seen.body as { memories: unknown[] }).memories.length)).toEqual([100, 100, 50]);
    expect((service.seen[1]!.body as { memories: { content: string }[] }).memories[0]!.content).toBe("n100");
    expect(result.summary).toEqual({ total: 250, successful: 249, failed: 1 });
    expect(result.results).toHaveLength(250);
    expect(result.results[0]).toEqual({ success: true, id: "id-n0" });
    expect(result.results[120]).toEqual({ success: false, error: { code: "VALIDATION_ERROR", message: "content is bad" } });
    expect(result.results[249]).toEqual({ success: true, id: "id-n249" });
    // each request is its own logical create, with its own key
    expect(new Set(service.seen.map((seen) => seen.headers["idempotency-key"])).size).toBe(3);
  });

  it("marks the items of a request that failed as a whole, and keeps the others", async () => {
    service.script(batchRoute, failWith(400, "VALIDATION_ERROR"), batchRoute);
    const result = await client.memories.batchCreate(Array.from({ length: 201 }, (_, i) => ({ content: `n${i}` })));
    expect(result.summary).toEqual({ total: 201, successful: 101, failed: 100 });
    expect(result.results[99]).toEqual({ success: true, id: "id-n99" });
    expect(result.results[100]).toEqual({
      success: false,
      error: { code: "VALIDATION_ERROR", message: "VALIDATION_ERROR happened" },
    });
    expect(result.results[200]).toEqual({ success: true, id: "id-n200" });
  });

  // 30 items of 90 000 characters, each within the limits, failed whole: 413, their body past 2 MB (helper-26)
  it("sends a request the server finds too large (413) again as two halves, down to one item, in input order", async () => {
    // too large: more than 30 items, or any body holding the huge one (alone too)
    const tooLarge = (seen: Seen) => {
      const { memories } = seen.body as { memories: { content: string }[] };
      return memories.length > 30 || memories.some((m) => m.content === "huge");
    };
    service.script((seen, res, req) => (tooLarge(seen) ? failWith(413, "PAYLOAD_TOO_LARGE") : batchRoute)(seen, res, req));
    const inputs = Array.from({ length: 100 }, (_, i) => ({ content: i === 70 ? "huge" : `n${i}` }));
    const result = await client.memories.batchCreate(inputs);
    expect(result.summary).toEqual({ total: 100, successful: 99, failed: 1 });
    expect(result.results.map((r) => (r.success ? r.id : r.error?.code))).toEqual(
      inputs.map(({ content }) => (content === "huge" ? "PAYLOAD_TOO_LARGE" : `id-${content}`)),
    );
  });

  it("rejects when every request failed, since nothing was stored", async () => {
    service.script(failWith(401, "UNAUTHORIZED"));
    const error = await rejection(client.memories.batchCreate(Array.from({ length: 150 }, () => ({ content: "x" }))));
    expect(error.code).toBe("INVALID_API_KEY");
    expect(service.seen).toHaveLength(2);
  });

  it("retries a request with its own key and the same body", async () => {
    service.script(cut, batchRoute);
    const result = await client.memories.batchCreate([{ content: "a" }]);
    expect(result.summary.successful).toBe(1);
    expect(service.seen[1]!.headers["idempotency-key"]).toBe(service.seen[0]!.headers["idempotency-key"]);
    expect(service.seen[1]!.body).toEqual(service.seen[0]!.body);
  });

  it("sends nothing for an empty list, or when an item has both content and data", async () => {
    expect(await client.memories.batchCreate([])).toEqual({ summary: { total: 0, successful: 0, failed: 0 }, results: [] });
    const bad = [{ content: "ok" }, { content: "x", data: { a: 1 } }] as unknown as Parameters<
      typeof client.memories.batchCreate
    >[0];
    expect((await rejection(client.memories.batchCreate(bad))).code).toBe("VALIDATION_ERROR");
    expect(service.seen).toHaveLength(0);
  });
});

describe("threads", () => {
  const thread = {
    id: "t1",
    title: "Trip to Japan",
    description: null,
    metadata: {},
    status: "active",
    created_at: "2025-01-01T00:00:00.000Z",
    updated_at: "2025-01-01T00:00:00.000Z",
  };

  it("create: POST /api/v1/threads with an Idempotency-Key, returning the 201 thread", async () => {
    service.script(answer(201, thread));
    const created = await client.threads.create({ title: "Trip to Japan", metadata: { country: "JP" } });
    expect(created).toEqual(thread);
    expect(service.seen[0]).toMatchObject({
      method: "POST",
      path: "/api/v1/threads",
      body: { title: "Trip to Japan", metadata: { country: "JP" } },
    });
    expect(service.seen[0]!.headers["idempotency-key"]).toMatch(UUID);
  });

  it("list: GET /api/v1/threads with limit, offset and status; awaitable and iterable", async () => {
    service.script(
      answer(200, { threads: [thread], total: 2, limit: 1, offset: 0, has_more: true }),
      answer(200, { threads: [{ ...thread, id: "t2" }], total: 2, limit: 1, offset: 1, has_more: false }),
    );
    const ids: string[] = [];
    for await (const item of client.threads.list({ limit: 1, status: "active" })) ids.push(item.id);
    expect(ids).toEqual(["t1", "t2"]);
    expect(service.seen.map((seen) => [seen.path, seen.query])).toEqual([
      ["/api/v1/threads", { limit: "1", status: "active" }],
      ["/api/v1/threads", { limit: "1", status: "active", offset: "1" }],
    ]);
  });

  it("get: GET /api/v1/threads/{id}, with include_memories and limit when asked, answering {thread}", async () => {
    const withMemories = { thread: { ...thread, memories: [memory()] } };
    service.script(answer(200, { thread }), answer(200, withMemories));
    expect(await client.threads.get("t1")).toEqual({ thread });
    expect(await client.threads.get("t1", { include_memories: true, limit: 5 })).toEqual(withMemories);
    expect(service.seen.map((seen) => [seen.method, seen.path, seen.query])).toEqual([
      ["GET", "/api/v1/threads/t1", {}],
      ["GET", "/api/v1/threads/t1", { include_memories: "true", limit: "5" }],
    ]);
  });

  it("update: PATCH /api/v1/threads/{id}, returning the thread", async () => {
    service.script(answer(200, { ...thread, status: "completed" }));
    expect((await client.threads.update("t1", { title: "Japan", status: "completed" })).status).toBe("completed");
    expect(service.seen[0]).toMatchObject({
      method: "PATCH",
      path: "/api/v1/threads/t1",
      body: { title: "Japan", status: "completed" },
    });
  });

  it("delete: DELETE /api/v1/threads/{id}, with delete_memories=true only when asked", async () => {
    service.script(answer(200, { ok: true }));
    expect(await client.threads.delete("t1")).toBeUndefined();
    await client.threads.delete("t1", { delete_memories: true });
    expect(service.seen.map((seen) => [seen.method, seen.path, seen.query])).toEqual([
      ["DELETE", "/api/v1/threads/t1", {}],
      ["DELETE", "/api/v1/threads/t1", { delete_memories: "true" }],
    ]);
  });
});

describe("retries", () => {
  it("retries a 5xx and returns the answer that follows", async () => {
    service.script(failWith(500, "INTERNAL"), failWith(503, "SERVICE_UNAVAILABLE"), answer(200, memory()));
    expect(await client.memories.get("m1")).toEqual(memory());
    expect(service.seen).toHaveLength(3);
  });

  it("waits retryDelay · 2^n between attempts, with jitter within [0.8, 1.2)", async () => {
    service.script(failWith(500, "INTERNAL"));
    const { hooks, events } = recordingHooks();
    const error = await rejection(makeClient({ hooks, retryDelay: 40 }).memories.get("m1"));
    expect(error.code).toBe("MAX_RETRIES");
    const delays = events.onRetry.map((event) => (event as { delayMs: number }).delayMs);
    expect(delays).toHaveLength(3);
    delays.forEach((delay, n) => {
      expect(delay).toBeGreaterThanOrEqual(Math.floor(0.8 * 40 * 2 ** n));
      expect(delay).toBeLessThanOrEqual(Math.ceil(1.2 * 40 * 2 ** n));
    });
  });

  it("jitters around the base: the lowest and highest draws give 0.8× and 1.2×", () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    expect([1, 2, 3].map((retry) => backoffMs(retry, 1000))).toEqual([800, 1600, 3200]);
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    expect([1, 2, 3].map((retry) => backoffMs(retry, 1000))).toEqual([1000, 2000, 4000]);
    vi.spyOn(Math, "random").mockReturnValue(0.9999999);
    expect([1, 2, 3].map((retry) => backoffMs(retry, 1000))).toEqual([1200, 2400, 4800]);
  });

  it("by default waits 1 s, 2 s and 4 s (fake timers)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const attemptsAt: number[] = [];
    const fetch = () => {
      attemptsAt.push(performance.now());
      return Promise.resolve(Response.json({ error: { code: "INTERNAL", message: "boom" } }, { status: 500 }));
    };
    const { hooks, events } = recordingHooks();
    const call = rejection(new MemoryClient({ apiKey: "k", baseUrl: "https://memory.example", fetch, hooks }).memories.get("m1"));
    await vi.advanceTimersByTimeAsync(999);
    expect(attemptsAt).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(attemptsAt).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(attemptsAt).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(3999);
    expect(attemptsAt).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    const error = await call;
    expect(attemptsAt).toHaveLength(4);
    expect(error).toMatchObject({ code: "MAX_RETRIES", status: 500, attempts: 4 });
    expect(events.onRetry.map((event) => (event as { delayMs: number }).delayMs)).toEqual([1000, 2000, 4000]);
  });

  it("on 429 waits as long as Retry-After says when that is longer than the backoff", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let calls = 0;
    const fetch = () =>
      Promise.resolve(
        calls++ === 0
          ? Response.json({ error: { code: "RATE_LIMITED", message: "slow down" } }, { status: 429, headers: { "retry-after": "7" } })
          : Response.json(memory()),
      );
    const { hooks, events } = recordingHooks();
    const call = new MemoryClient({ apiKey: "k", baseUrl: "https://memory.example", fetch, hooks }).memories.get("m1");
    await vi.advanceTimersByTimeAsync(6999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await call).toEqual(memory());
    expect(calls).toBe(2);
    expect(events.onRetry).toEqual([expect.objectContaining({ delayMs: 7000 })]);
  });

  it("reads Retry-After as seconds or an HTTP date; on a 429 without it, X-RateLimit-Reset; Retry-After wins", () => {
    const now = Date.parse("2025-06-01T12:00:00Z");
    const headers = (entries: Record<string, string>) => new Headers(entries);
    expect(serverWaitMs(429, headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(serverWaitMs(429, headers({ "retry-after": "Sun, 01 Jun 2025 12:00:05 GMT" }), now)).toBe(5000);
    expect(serverWaitMs(429, headers({ "x-ratelimit-reset": String(now / 1000 + 9) }), now)).toBe(9000);
    expect(serverWaitMs(429, headers({ "retry-after": "2", "x-ratelimit-reset": String(now / 1000 + 9) }), now)).toBe(2000);
    expect(serverWaitMs(429, headers({ "x-ratelimit-reset": String(now / 1000 - 5) }), now)).toBe(0);
    expect(serverWaitMs(429, headers({}), now)).toBeUndefined();
    expect(serverWaitMs(503, headers({ "retry-after": "4" }), now)).toBe(4000);
    // on a 5xx the rate-limit window says nothing about when the failure will pass
    expect(serverWaitMs(500, headers({ "x-ratelimit-reset": String(now / 1000 + 9) }), now)).toBeUndefined();
  });

  it("ends with RATE_LIMIT_EXCEEDED after maxRetries retries of a 429", async () => {
    service.script(failWith(429, "RATE_LIMITED", { "retry-after": "0", "x-ratelimit-remaining": "0" }));
    const { hooks, log } = recordingHooks();
    const error = await rejection(makeClient({ hooks, maxRetries: 2 }).memories.get("m1"));
    expect(error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", status: 429, attempts: 3, retryAfterMs: 0 });
    expect(error.requestId).toBe(service.seen[2]!.headers["x-request-id"]);
    expect(service.seen).toHaveLength(3);
    expect(log).toEqual([
      "request:1",
      "response:1:429",
      "error:1:RATE_LIMIT_EXCEEDED",
      "retry:1",
      "request:2",
      "response:2:429",
      "error:2:RATE_LIMIT_EXCEEDED",
      "retry:2",
      "request:3",
      "response:3:429",
      "error:3:RATE_LIMIT_EXCEEDED",
    ]);
  });

  it("fails at once when the server asks for a wait longer than maxRetryAfterMs", async () => {
    service.script(failWith(429, "RATE_LIMITED", { "retry-after": "3600" }));
    const error = await rejection(client.memories.get("m1"));
    expect(error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", attempts: 1, retryAfterMs: 3_600_000 });
    expect(service.seen).toHaveLength(1);
  });

  it.each([
    [400, "VALIDATION_ERROR", "VALIDATION_ERROR"],
    [401, "UNAUTHORIZED", "INVALID_API_KEY"],
    [404, "NOT_FOUND", "NOT_FOUND"],
    [409, "IDEMPOTENCY_CONFLICT", "IDEMPOTENCY_CONFLICT"],
  ])("never retries a %i (%s → %s)", async (status, sent, code) => {
    service.script(failWith(status, sent));
    const error = await rejection(client.memories.create({ content: "x" }));
    expect(error).toMatchObject({ code, status, attempts: 1, message: `${sent} happened` });
    expect(service.seen).toHaveLength(1);
  });

  // a create retried after its first attempt timed out met the first still running, and the call failed though the
  // memory was stored (helper-26)
  it("retries a 409 that says when (Retry-After: the key's first request still running), not one that does not", async () => {
    service.script(failWith(409, "IDEMPOTENCY_CONFLICT", { "retry-after": "0" }), answer(201, memory()));
    expect(await client.memories.create({ content: "x" })).toEqual(memory());
    expect(new Set(service.seen.map((seen) => seen.headers["idempotency-key"])).size).toBe(1);
    service.seen.length = 0;
    service.script(failWith(409, "IDEMPOTENCY_CONFLICT"));
    expect(await rejection(client.memories.create({ content: "x" }))).toMatchObject({ code: "IDEMPOTENCY_CONFLICT", status: 409, attempts: 1 });
    expect(service.seen).toHaveLength(1);
  });

  it("ends with MAX_RETRIES wrapping the last 5xx when the retries run out", async () => {
    service.script(failWith(500, "INTERNAL"));
    const error = await rejection(client.memories.get("m1"));
    expect(error).toMatchObject({ code: "MAX_RETRIES", status: 500, attempts: 4 });
    expect(error.cause).toBeInstanceOf(MemoryServiceError);
    expect(error.cause).toMatchObject({ code: "INTERNAL", status: 500, attempts: 4 });
    expect(error.requestId).toBe(service.seen[3]!.headers["x-request-id"]);
  });

  it("retries a 5xx that is not JSON (a proxy's error page) and names it UNEXPECTED_RESPONSE", async () => {
    service.script(
      (_seen, res) => res.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad gateway</h1>"),
      answer(200, memory()),
    );
    expect(await client.memories.get("m1")).toEqual(memory());
    service.script((_seen, res) => res.writeHead(502).end("<h1>Bad gateway</h1>"));
    const error = await rejection(makeClient({ maxRetries: 0 }).memories.get("m1"));
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 502 });
  });

  // a 200 {} (a proxy's, another service's) surfaced as "Cannot read properties of undefined (reading 'map')" (outside probe)
  it("answers UNEXPECTED_RESPONSE for a 200 JSON body without the list it should hold", async () => {
    for (const call of [
      () => client.memories.search({ query: "x" }),
      () => client.memories.recall({ query: "x" }),
      async () => client.memories.list(),
      async () => client.threads.list(),
    ]) {
      service.script(answer(200, {}));
      const error = await rejection(call());
      expect(error).toBeInstanceOf(MemoryServiceError);
      expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE" });
    }
  });

  it("does not retry a 200 whose body is not JSON", async () => {
    service.script((_seen, res) => res.writeHead(200).end("hello"));
    expect(await rejection(client.memories.get("m1"))).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 200 });
    expect(service.seen).toHaveLength(1);
  });

  it("with maxRetries 0 makes one attempt and throws its own error", async () => {
    service.script(failWith(500, "INTERNAL"));
    expect(await rejection(makeClient({ maxRetries: 0 }).memories.get("m1"))).toMatchObject({
      code: "INTERNAL",
      status: 500,
      attempts: 1,
    });
    expect(service.seen).toHaveLength(1);
  });
});

describe("timeouts and network errors", () => {
  it("TIMEOUT when the server does not answer within timeoutMs (fake timers)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const sent: string[] = [];
    // a server that never answers: the request ends only when the client gives up on it
    const fetch = (_url: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        sent.push(new Headers(init?.headers).get("x-request-id")!);
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
      });
    let settled = false;
    const call = rejection(
      new MemoryClient({ apiKey: "k", baseUrl: "https://memory.example", fetch, timeoutMs: 100, maxRetries: 0 }).memories.get("m1"),
    ).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(99);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await call;
    expect(error).toMatchObject({ code: "TIMEOUT", status: undefined, attempts: 1 });
    expect(sent).toHaveLength(1);
    expect(error.requestId).toBe(sent[0]);
  });

  it("TIMEOUT when the headers come but the body stalls", async () => {
    service.script((_seen, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id":');
    });
    const error = await rejection(makeClient({ timeoutMs: 100, maxRetries: 0 }).memories.get("m1"));
    expect(error.code).toBe("TIMEOUT");
  });

  it("retries timeouts, then MAX_RETRIES with the TIMEOUT as cause", async () => {
    service.script(stall);
    const { hooks, log } = recordingHooks();
    const error = await rejection(makeClient({ timeoutMs: 50, maxRetries: 2, hooks }).memories.create({ content: "x" }));
    expect(error).toMatchObject({ code: "MAX_RETRIES", attempts: 3, status: undefined });
    expect(error.cause).toMatchObject({ code: "TIMEOUT" });
    expect(service.seen).toHaveLength(3);
    expect(new Set(service.seen.map((seen) => seen.headers["idempotency-key"])).size).toBe(1);
    expect(log).toEqual([
      "request:1",
      "error:1:TIMEOUT",
      "retry:1",
      "request:2",
      "error:2:TIMEOUT",
      "retry:2",
      "request:3",
      "error:3:MAX_RETRIES",
    ]);
  });

  it("NETWORK_ERROR on each attempt at a closed port, then MAX_RETRIES", async () => {
    const { hooks, log, events } = recordingHooks();
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const error = await rejection(makeClient({ baseUrl, hooks }).memories.list());
    expect(error).toMatchObject({ code: "MAX_RETRIES", attempts: 4, status: undefined });
    expect(error.cause).toMatchObject({ code: "NETWORK_ERROR" });
    expect((error.cause as Error).message).toMatch(/ECONNREFUSED/);
    expect(log.filter((entry) => entry.startsWith("error:"))).toEqual([
      "error:1:NETWORK_ERROR",
      "error:2:NETWORK_ERROR",
      "error:3:NETWORK_ERROR",
      "error:4:MAX_RETRIES",
    ]);
    expect(events.onRetry).toHaveLength(3);
  });

  it("with maxRetries 0 a closed port is a NETWORK_ERROR", async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    expect((await rejection(makeClient({ baseUrl, maxRetries: 0 }).memories.get("m1"))).code).toBe("NETWORK_ERROR");
  });
});

describe("cancellation (options.signal)", () => {
  it("ABORTED when the signal is aborted while the request is under way: the request is cancelled, nothing retried", async () => {
    let arrived!: () => void;
    const arriving = new Promise<void>((resolve) => (arrived = resolve));
    const closed: boolean[] = [];
    service.script((_seen, res) => {
      res.on("close", () => closed.push(res.writableEnded));
      arrived();
    });
    const { hooks, log } = recordingHooks();
    const controller = new AbortController();
    const call = rejection(makeClient({ hooks }).memories.search({ query: "tea" }, { signal: controller.signal }));
    await arriving;
    controller.abort(new Error("the user typed on"));
    const error = await call;
    expect(error).toMatchObject({ code: "ABORTED", attempts: 1, status: undefined });
    expect((error.cause as Error).message).toBe("the user typed on");
    expect(log).toEqual(["request:1", "error:1:ABORTED"]);
    await vi.waitFor(() => expect(closed, "the connection given up, unanswered").toEqual([false]));
    expect(service.seen).toHaveLength(1);
  });

  it("ABORTED during the wait before a retry, without the retry", async () => {
    service.script(failWith(503, "SERVICE_UNAVAILABLE"));
    const controller = new AbortController();
    const client = makeClient({ retryDelay: 60_000, hooks: { onRetry: () => controller.abort() } });
    const started = Date.now();
    const error = await rejection(client.threads.create({ title: "t" }, { signal: controller.signal }));
    expect(error).toMatchObject({ code: "ABORTED", attempts: 1 });
    expect(Date.now() - started, "not the 60 s backoff").toBeLessThan(5_000);
    expect(service.seen).toHaveLength(1);
  });

  it("ABORTED before anything is sent when the signal is aborted already", async () => {
    const error = await rejection(client.memories.get("m1", { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: "ABORTED", attempts: 0 });
    expect(service.seen).toHaveLength(0);
  });

  it("ends a batch create as a whole, rather than failing its remaining items one by one", async () => {
    const controller = new AbortController();
    service.script((seen, res) => {
      const { memories } = seen.body as { memories: unknown[] };
      controller.abort();
      send(res, 201, { summary: { total: memories.length, successful: memories.length, failed: 0 }, results: memories.map(() => ({ success: true })) });
    });
    const inputs = Array.from({ length: 150 }, (_, i) => ({ content: `m${i}` }));
    const error = await rejection(client.memories.batchCreate(inputs, { signal: controller.signal }));
    expect(error.code).toBe("ABORTED");
    expect(service.seen, "the second request never sent").toHaveLength(1);
  });

  it("holds for every page a list walks", async () => {
    const controller = new AbortController();
    service.script(
      answer(200, { memories: [memory()], total: 2, limit: 1, offset: 0, has_more: true }),
      answer(200, { memories: [memory({ id: "9b2f3c1e-0000-4000-8000-000000000002" })], total: 2, limit: 1, offset: 1, has_more: false }),
    );
    const seen: string[] = [];
    const walk = (async () => {
      for await (const item of client.memories.list({ limit: 1 }, { signal: controller.signal })) {
        seen.push(item.id);
        controller.abort();
      }
    })();
    expect((await rejection(walk)).code).toBe("ABORTED");
    expect(seen).toHaveLength(1);
    expect(service.seen).toHaveLength(1);
  });
});

describe("hooks", () => {
  it("see every attempt: request, response with duration and rate-limit headers, error, retry", async () => {
    const rateLimit = { "x-ratelimit-limit": "600", "x-ratelimit-remaining": "598", "x-ratelimit-reset": "1750000000" };
    service.script(failWith(500, "INTERNAL", rateLimit), answer(201, { ...memory(), ok: true }, rateLimit));
    const { hooks, log, events } = recordingHooks();
    await makeClient({ hooks }).memories.create({ content: "x" });
    expect(log).toEqual(["request:1", "response:1:500", "error:1:INTERNAL", "retry:1", "request:2", "response:2:201"]);

    const key = service.seen[0]!.headers["idempotency-key"];
    const url = `${service.url}/api/v1/memory`;
    expect(events.onRequest).toEqual([
      { method: "POST", url, attempt: 1, requestId: service.seen[0]!.headers["x-request-id"], idempotencyKey: key },
      { method: "POST", url, attempt: 2, requestId: service.seen[1]!.headers["x-request-id"], idempotencyKey: key },
    ]);
    expect(events.onResponse[1]).toEqual({
      ...(events.onRequest[1] as object),
      status: 201,
      durationMs: expect.any(Number),
      rateLimit: { limit: 600, remaining: 598, reset: 1750000000 },
    });
    expect(events.onError[0]).toEqual({
      ...(events.onRequest[0] as object),
      error: expect.objectContaining({ code: "INTERNAL", status: 500 }),
      durationMs: expect.any(Number),
      willRetry: true,
    });
    expect(events.onRetry[0]).toEqual({
      ...(events.onRequest[0] as object),
      error: expect.objectContaining({ code: "INTERNAL" }),
      delayMs: expect.any(Number),
    });
  });

  it("report no rate limit when the response has none of its headers", async () => {
    service.script(answer(200, memory()));
    const { hooks, events } = recordingHooks();
    await makeClient({ hooks }).memories.get("m1");
    expect(events.onResponse[0]).toMatchObject({ status: 200, rateLimit: undefined });
  });

  it("give onError the error the call rejects with, for a 401 without retrying", async () => {
    service.script(failWith(401, "UNAUTHORIZED"));
    const { hooks, log, events } = recordingHooks();
    const error = await rejection(makeClient({ hooks }).memories.get("m1"));
    expect(log).toEqual(["request:1", "response:1:401", "error:1:INVALID_API_KEY"]);
    expect((events.onError[0] as { error: unknown; willRetry: boolean }).error).toBe(error);
    expect(events.onError[0]).toMatchObject({ willRetry: false });
  });

  it("that throw or reject never break the call, on success or on retry", async () => {
    service.script(failWith(500, "INTERNAL"), answer(200, memory()));
    const boom = () => {
      throw new Error("hook bug");
    };
    const rejecting = () => Promise.reject(new Error("async hook bug"));
    const hooks = { onRequest: boom, onResponse: rejecting, onRetry: boom, onError: rejecting };
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      expect(await makeClient({ hooks }).memories.get("m1")).toEqual(memory());
      service.script(failWith(404, "NOT_FOUND"));
      expect((await rejection(makeClient({ hooks }).memories.get("m1"))).code).toBe("NOT_FOUND");
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  it("written as class methods keep their this", async () => {
    service.script(answer(200, memory()));
    class Counter {
      requests = 0;
      onRequest() {
        this.requests++;
      }
    }
    const counter = new Counter();
    await makeClient({ hooks: counter }).memories.get("m1");
    expect(counter.requests).toBe(1);
  });
});
