import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
  type GraphQLObjectType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteKeyAdmin } from "../../src/control/client.ts";
import type { Database } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/open.ts";
import { ApiKeyService } from "../../src/domain/api-key.ts";
import { keyAdmin, type KeyAdmin } from "../../src/domain/key-admin.ts";
import { UserService } from "../../src/domain/user.ts";
import { getSchema } from "../../src/graphql/schema.ts";
import { createRouter } from "../../src/rest/routes/index.ts";
import { HttpClient, type HttpResult, type RequestOptions } from "../support/http.ts";
import { databaseUnavailable, databaseUnderTest, startTestServer, type TestServer, type TestUser } from "../support/server.ts";

// The security matrix (issue 5): user B aims every id-taking REST route and GraphQL field at user A's records.
// Each attempt must be answered exactly as the same attempt at ids that name nothing, show nothing of A's,
// and leave every record of A's as it was. Then: a revoked key is refused on the very next request.

/** What B aims at: A's ids and names, or (for the comparison) fresh ones that name nothing. */
interface Targets {
  memory: string;
  archived: string;
  threaded: string;
  structured: string;
  legacy: string;
  idempotent: string;
  graphqlIdempotent: string;
  thread: string;
  key: string;
  webhook: string;
  workspace: string;
  legacyUser: string;
  /** A's Idempotency-Keys: each is sent by B in one case only (B's second use of a key would be B's own repeat). */
  restIdemKey: string;
  plainIdemKey: string;
  archivedIdemKey: string;
  graphqlIdemKey: string;
  legacyIdemKey: string;
}

const MEMORY_TARGETS = ["memory", "archived", "threaded", "structured", "legacy", "idempotent", "graphqlIdempotent"] as const;
type MemoryTarget = (typeof MEMORY_TARGETS)[number];

const hex = (bytes = 4) => randomBytes(bytes).toString("hex");

/** Targets that name nothing: what B's attempt at A's records must be indistinguishable from. */
const nothing = (): Targets => ({
  memory: randomUUID(),
  archived: randomUUID(),
  threaded: randomUUID(),
  structured: randomUUID(),
  legacy: randomUUID(),
  idempotent: randomUUID(),
  graphqlIdempotent: randomUUID(),
  thread: randomUUID(),
  key: randomUUID(),
  webhook: randomUUID(),
  workspace: `ws-nobody-${hex()}`,
  legacyUser: `nobody-${hex()}`,
  restIdemKey: `idem-rest-${hex()}`,
  plainIdemKey: `idem-plain-${hex()}`,
  archivedIdemKey: `idem-archived-${hex()}`,
  graphqlIdemKey: `idem-gql-${hex()}`,
  legacyIdemKey: `idem-legacy-${hex()}`,
});

/** A client that remembers what it last sent, so that a response may echo B's own input but nothing else. */
class Recorder extends HttpClient {
  last = "";

  override request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    this.last = `${method} ${path} ${JSON.stringify(options)}`;
    return super.request<T>(method, path, options);
  }
}

interface Ctx {
  bob: Recorder;
  /** A memory of B's own, which B tries to move under A's thread. */
  bobMemory: string;
}

interface Expected {
  status: number;
  /** Compared with toEqual (asymmetric matchers allowed); absent: not checked beyond the common rules. */
  body?: unknown;
}

interface Case {
  name: string;
  /** REST routes as Router.list() names them ("GET /api/v1/memories/:id") and GraphQL fields ("Query.memory"). */
  covers: string[];
  send(ctx: Ctx, t: Targets): Promise<HttpResult<unknown>>;
  expected: Expected;
}

const NOT_FOUND: Expected = { status: 404, body: { error: { code: "NOT_FOUND", message: expect.any(String) } } };
const FOREIGN_THREAD = "thread_id does not name one of your threads";
const NOT_YOUR_THREAD: Expected = { status: 400, body: { error: { code: "VALIDATION_ERROR", message: FOREIGN_THREAD } } };
const EMPTY_PAGE = { memories: [], total: 0, limit: 20, offset: 0, has_more: false };
/** The current list's empty page: the legacy one's, and a next_cursor. */
const EMPTY_LIST = { ...EMPTY_PAGE, next_cursor: null };
const NO_RECALL = { results: [], total: 0, query_type: "thread" };

/** A GraphQL answer without errors: `data` exactly (matchers allowed). */
const gqlData = (data: Record<string, unknown>): Expected => ({ status: 200, body: { data } });
const gqlError = (code: "NOT_FOUND" | "VALIDATION_ERROR", message?: string): Expected => ({
  status: code === "NOT_FOUND" ? 404 : 400,
  body: {
    data: null,
    errors: [
      expect.objectContaining({
        message: message ?? expect.any(String),
        extensions: expect.objectContaining({ code }),
      }),
    ],
  },
});

/** A REST attempt; the method comes from `route` unless given (HEAD). */
interface RestAttempt {
  route: string;
  method?: string;
  path(t: Targets, ctx: Ctx): string;
  body?(t: Targets, ctx: Ctx): unknown;
  headers?(t: Targets): Record<string, string>;
  /** What the attempt is, when the path does not say it all. */
  note?: string;
  expected: Expected;
}

/** The targets by name, to name a case after the path it requests: `/api/v1/memories/{archived}`. */
const PLACEHOLDERS = new Proxy({} as Targets, { get: (_, name) => `{${String(name)}}` });
const PLACEHOLDER_CTX = { bobMemory: "{B's memory}" } as Ctx;

const rest = (a: RestAttempt): Case => {
  const method = a.method ?? a.route.split(" ")[0]!;
  return {
    name: `REST ${method} ${a.path(PLACEHOLDERS, PLACEHOLDER_CTX)}${a.note ? ` ${a.note}` : ""}`,
    covers: [a.route],
    send: (ctx, t) =>
      ctx.bob.request<unknown>(method, a.path(t, ctx), {
        ...(a.body ? { json: a.body(t, ctx) } : {}),
        ...(a.headers ? { headers: a.headers(t) } : {}),
      }),
    expected: a.expected,
  };
};

/** A GraphQL attempt: `fields` are the root fields it exercises ("Query.memory"). */
interface GraphQLAttempt {
  name: string;
  fields: string[];
  query: string;
  variables?(t: Targets, ctx: Ctx): Record<string, unknown>;
  headers?(t: Targets): Record<string, string>;
  expected: Expected;
}

const gql = (a: GraphQLAttempt): Case => ({
  name: `GraphQL ${a.name}`,
  covers: a.fields,
  send: (ctx, t) => ctx.bob.graphql<unknown>(a.query, a.variables?.(t, ctx), a.headers ? { headers: a.headers(t) } : undefined),
  expected: a.expected,
});

const HIJACK = { content: "hijacked by bob", is_archived: false, thread_id: null, tags: ["hijacked"], metadata: {} };
const MEMORY_SELECTION = `id content data type tags metadata threadId isArchived workspaceId legacyUserId expiresAt createdAt updatedAt
  thread { id title description metadata memoryCount memories(limit: 100) { id content } }`;
const THREAD_SELECTION = "id title description metadata status memoryCount createdAt updatedAt memories(limit: 100) { id content data }";

// A's requests that carried an Idempotency-Key: B sends the very same ones with the same keys
const ALICE_IDEM_BODY = { content: `alice idempotent note about lighthouse lamps zqidem${hex()}`, tags: ["once"] };
const ALICE_GQL_IDEM_QUERY = `mutation { createMemory(input: { content: "alice graphql idempotent lighthouse zqgidem${hex()}" }) { id content } }`;
const ALICE_WORKSPACE = `ws-alice-${hex()}`;
const ALICE_LEGACY_USER = `alice-legacy-${hex()}`;
const ALICE_LEGACY_CONTENT = `alice legacy note lighthouse keeper zqlegacy${hex()}`;
/** A's legacy create, or the same request in another workspace and under another legacy userId. */
const legacyBody = (t: Pick<Targets, "workspace" | "legacyUser">) => ({
  workspaceId: t.workspace,
  userId: t.legacyUser,
  content: ALICE_LEGACY_CONTENT,
  kind: "task",
});

/** Every route and field that names one memory, at each of A's memories. */
const memoryCases: Case[] = MEMORY_TARGETS.flatMap((k: MemoryTarget): Case[] => {
  const path = (t: Targets) => `/api/v1/memories/${t[k]}`;
  const id = (t: Targets) => ({ id: t[k] });
  return [
    rest({ route: "GET /api/v1/memories/:id", path, expected: NOT_FOUND }),
    rest({ route: "GET /api/v1/memories/:id/history", path: (t: Targets) => `${path(t)}/history`, expected: NOT_FOUND }),
    rest({ route: "PATCH /api/v1/memories/:id", path, body: () => HIJACK, expected: NOT_FOUND }),
    rest({ route: "PUT /api/v1/memories/:id", path, body: () => HIJACK, expected: NOT_FOUND }),
    rest({ route: "DELETE /api/v1/memories/:id", path, expected: NOT_FOUND }),
    gql({
      name: `memory(id: ${k})`,
      fields: ["Query.memory"],
      query: `query ($id: ID!) { memory(id: $id) { ${MEMORY_SELECTION} } }`,
      variables: id,
      expected: gqlData({ memory: null }),
    }),
    gql({
      name: `memoryHistory(id: ${k})`,
      fields: ["Query.memoryHistory"],
      query: `query ($id: ID!) { memoryHistory(id: $id, limit: 100) { total hasMore items { version action keyId keyName before after } } }`,
      variables: id,
      expected: gqlData({ memoryHistory: { total: 0, hasMore: false, items: [] } }),
    }),
    gql({
      name: `updateMemory(id: ${k})`,
      fields: ["Mutation.updateMemory"],
      query: `mutation ($id: ID!) {
        updateMemory(id: $id, input: { content: "hijacked", isArchived: false, threadId: null, tags: [] }) { ${MEMORY_SELECTION} }
      }`,
      variables: id,
      expected: gqlError("NOT_FOUND"),
    }),
    gql({
      name: `replaceMemory(id: ${k})`,
      fields: ["Mutation.replaceMemory"],
      query: `mutation ($id: ID!) { replaceMemory(id: $id, input: { content: "hijacked" }) { ${MEMORY_SELECTION} } }`,
      variables: id,
      expected: gqlError("NOT_FOUND"),
    }),
    gql({
      name: `deleteMemory(id: ${k})`,
      fields: ["Mutation.deleteMemory"],
      query: `mutation ($id: ID!) { deleteMemory(id: $id) }`,
      variables: id,
      expected: gqlError("NOT_FOUND"),
    }),
  ];
});

const threadCases: Case[] = [
  rest({ route: "GET /api/v1/threads/:id", path: (t) => `/api/v1/threads/${t.thread}`, expected: NOT_FOUND }),
  rest({
    route: "GET /api/v1/threads/:id",
    path: (t) => `/api/v1/threads/${t.thread}?include_memories=true&limit=100`,
    expected: NOT_FOUND,
  }),
  rest({
    route: "PATCH /api/v1/threads/:id",
    path: (t) => `/api/v1/threads/${t.thread}`,
    body: () => ({ title: "hijacked", description: null, metadata: {}, status: "archived" }),
    expected: NOT_FOUND,
  }),
  rest({ route: "DELETE /api/v1/threads/:id", path: (t) => `/api/v1/threads/${t.thread}`, expected: NOT_FOUND }),
  rest({ route: "DELETE /api/v1/threads/:id", path: (t) => `/api/v1/threads/${t.thread}?delete_memories=true`, expected: NOT_FOUND }),
  gql({
    name: "thread(id)",
    fields: ["Query.thread"],
    query: `query ($id: ID!) { thread(id: $id) { ${THREAD_SELECTION} } }`,
    variables: (t) => ({ id: t.thread }),
    expected: gqlData({ thread: null }),
  }),
  gql({
    name: "updateThread(id)",
    fields: ["Mutation.updateThread"],
    query: `mutation ($id: ID!) {
      updateThread(id: $id, input: { title: "hijacked", status: archived, metadata: {} }) { ${THREAD_SELECTION} }
    }`,
    variables: (t) => ({ id: t.thread }),
    expected: gqlError("NOT_FOUND"),
  }),
  ...[false, true].map((deleteMemories) =>
    gql({
      name: `deleteThread(id, deleteMemories: ${deleteMemories})`,
      fields: ["Mutation.deleteThread"],
      query: `mutation ($id: ID!, $deleteMemories: Boolean) { deleteThread(id: $id, deleteMemories: $deleteMemories) }`,
      variables: (t) => ({ id: t.thread, deleteMemories }),
      expected: gqlError("NOT_FOUND"),
    }),
  ),
];

/** The id in other spellings, and every id of A's at once. */
const spellingCases: Case[] = [
  rest({ route: "GET /api/v1/memories/:id", method: "HEAD", path: (t) => `/api/v1/memories/${t.memory}`, expected: { status: 404 } }),
  rest({ route: "GET /api/v1/memories/:id", path: (t) => `/api/v1/memories/${t.memory.toUpperCase()}`, note: "(upper case)", expected: NOT_FOUND }),
  rest({
    route: "PATCH /api/v1/memories/:id",
    path: (t) => `/api/v1/memories/${t.memory.toUpperCase()}`,
    body: () => HIJACK,
    note: "(upper case)",
    expected: NOT_FOUND,
  }),
  rest({ route: "GET /api/v1/threads/:id", path: (t) => `/api/v1/threads/${t.thread.toUpperCase()}`, note: "(upper case)", expected: NOT_FOUND }),
  gql({
    name: "memory(id) in upper case",
    fields: ["Query.memory"],
    query: `query ($id: ID!) { memory(id: $id) { id content } }`,
    variables: (t) => ({ id: t.memory.toUpperCase() }),
    expected: gqlData({ memory: null }),
  }),
  gql({
    name: "every id of A's in one operation, under aliases",
    fields: ["Query.memory", "Query.thread"],
    query: `query (${MEMORY_TARGETS.map((k) => `$${k}: ID!`).join(", ")}, $thread: ID!) {
      ${MEMORY_TARGETS.map((k) => `${k}: memory(id: $${k}) { ${MEMORY_SELECTION} }`).join("\n")}
      thread(id: $thread) { ${THREAD_SELECTION} }
    }`,
    variables: (t) => ({ ...Object.fromEntries(MEMORY_TARGETS.map((k) => [k, t[k]])), thread: t.thread }),
    expected: gqlData({ ...Object.fromEntries(MEMORY_TARGETS.map((k) => [k, null])), thread: null }),
  }),
];

const threadErrorGql = gqlError("VALIDATION_ERROR", "threadId does not name one of your threads");

/** A's thread id where a memory is written: the documented 400 (CONTRACT: thread_id must name a thread of the same user). */
const threadWriteCases: Case[] = [
  rest({
    route: "POST /api/v1/memory",
    path: () => "/api/v1/memory",
    body: (t) => ({ content: "bob files a note under a thread", thread_id: t.thread }),
    note: "{thread_id: A's}",
    expected: NOT_YOUR_THREAD,
  }),
  rest({
    route: "POST /api/v1/memory/batch",
    path: () => "/api/v1/memory/batch",
    body: (t) => [{ content: "bob batch item", thread_id: t.thread }],
    note: "[{thread_id: A's}]",
    expected: {
      status: 200,
      body: {
        summary: { total: 1, successful: 0, failed: 1 },
        results: [{ success: false, error: { code: "VALIDATION_ERROR", message: FOREIGN_THREAD } }],
      },
    },
  }),
  rest({
    route: "POST /api/v1/memory/batch",
    path: () => "/api/v1/memory/batch",
    body: (t) => ({ memories: [{ content: "bob batch own item" }, { content: "bob batch item", thread_id: t.thread }] }),
    note: "{memories: [B's own item, {thread_id: A's}]}",
    expected: {
      status: 200,
      body: {
        summary: { total: 2, successful: 1, failed: 1 },
        results: [
          { success: true, id: expect.any(String) },
          { success: false, error: { code: "VALIDATION_ERROR", message: FOREIGN_THREAD } },
        ],
      },
    },
  }),
  rest({
    route: "PATCH /api/v1/memories/:id",
    path: (_, { bobMemory }) => `/api/v1/memories/${bobMemory}`,
    body: (t) => ({ thread_id: t.thread }),
    note: "{thread_id: A's}",
    expected: NOT_YOUR_THREAD,
  }),
  rest({
    route: "PUT /api/v1/memories/:id",
    path: (_, { bobMemory }) => `/api/v1/memories/${bobMemory}`,
    body: (t) => ({ content: "bob grows tomatoes in the garden", thread_id: t.thread }),
    note: "{thread_id: A's}",
    expected: NOT_YOUR_THREAD,
  }),
  gql({
    name: "createMemory(input: {threadId: A's})",
    fields: ["Mutation.createMemory"],
    query: `mutation ($thread: ID!) { createMemory(input: { content: "bob note", threadId: $thread }) { ${MEMORY_SELECTION} } }`,
    variables: (t) => ({ thread: t.thread }),
    expected: threadErrorGql,
  }),
  gql({
    name: "batchCreateMemories(items: [B's own item, {threadId: A's}])",
    fields: ["Mutation.batchCreateMemories"],
    query: `mutation ($thread: ID!) {
      batchCreateMemories(items: [{ content: "bob own batch item" }, { content: "bob batch item", threadId: $thread }]) {
        summary { total successful failed }
        results { success id error { code message field } memory { content thread { title } } }
      }
    }`,
    variables: (t) => ({ thread: t.thread }),
    expected: gqlData({
      batchCreateMemories: {
        summary: { total: 2, successful: 1, failed: 1 },
        results: [
          { success: true, id: expect.any(String), error: null, memory: { content: "bob own batch item", thread: null } },
          {
            success: false,
            id: null,
            error: { code: "VALIDATION_ERROR", message: "threadId does not name one of your threads", field: "threadId" },
            memory: null,
          },
        ],
      },
    }),
  }),
  gql({
    name: "updateMemory(id: B's memory, input: {threadId: A's})",
    fields: ["Mutation.updateMemory"],
    query: `mutation ($id: ID!, $thread: ID!) { updateMemory(id: $id, input: { threadId: $thread }) { id threadId thread { title } } }`,
    variables: (t, { bobMemory }) => ({ id: bobMemory, thread: t.thread }),
    expected: threadErrorGql,
  }),
  gql({
    name: "replaceMemory(id: B's memory, input: {threadId: A's})",
    fields: ["Mutation.replaceMemory"],
    query: `mutation ($id: ID!, $thread: ID!) {
      replaceMemory(id: $id, input: { content: "bob grows tomatoes", threadId: $thread }) { id thread { title } }
    }`,
    variables: (t, { bobMemory }) => ({ id: bobMemory, thread: t.thread }),
    expected: threadErrorGql,
  }),
];

/** A's thread id as a filter: an empty answer, the same as for a thread that does not exist. */
const threadFilterCases: Case[] = [
  rest({ route: "GET /api/v1/memory", path: (t) => `/api/v1/memory?thread_id=${t.thread}&limit=20`, expected: { status: 200, body: EMPTY_LIST } }),
  rest({
    route: "GET /api/v1/memory",
    path: (t) => `/api/v1/memory?thread_id=${t.thread}&is_archived=true`,
    expected: { status: 200, body: EMPTY_LIST },
  }),
  rest({
    route: "GET /api/v1/memory/recall",
    path: (t) => `/api/v1/memory/recall?query=lighthouse%20renovation%20budget&thread_id=${t.thread}`,
    expected: { status: 200, body: NO_RECALL },
  }),
  rest({
    route: "POST /api/v1/memory/recall",
    path: () => "/api/v1/memory/recall",
    body: (t) => ({ query: "lighthouse chowder", limit: 100, thread_id: t.thread }),
    note: "{thread_id: A's}",
    expected: { status: 200, body: NO_RECALL },
  }),
  rest({
    route: "POST /api/v1/memory/recall",
    path: () => "/api/v1/memory/recall",
    body: (t) => ({ query: "what do I prefer?", thread_id: t.thread }),
    note: "{thread_id: A's} with a question about the user",
    expected: { status: 200, body: NO_RECALL },
  }),
  gql({
    name: "memories(filter: {threadId: A's})",
    fields: ["Query.memories"],
    query: `query ($thread: ID!) { memories(filter: { threadId: $thread }, limit: 100) { total hasMore items { ${MEMORY_SELECTION} } } }`,
    variables: (t) => ({ thread: t.thread }),
    expected: gqlData({ memories: { total: 0, hasMore: false, items: [] } }),
  }),
  gql({
    name: "memories(filter: {threadId: A's, isArchived: true})",
    fields: ["Query.memories"],
    query: `query ($thread: ID!) { memories(filter: { threadId: $thread, isArchived: true }) { total items { id } } }`,
    variables: (t) => ({ thread: t.thread }),
    expected: gqlData({ memories: { total: 0, items: [] } }),
  }),
  gql({
    name: "memoriesConnection(filter: {threadId: A's, or: [metadata]})",
    fields: ["Query.memoriesConnection"],
    query: `query ($thread: ID!) {
      memoriesConnection(first: 100, filter: { threadId: $thread, or: [{ metadata: [{ path: "source", exists: true }] }, { not: { type: "none" } }] }) {
        edges { cursor node { id content data type tags metadata threadId createdAt } } pageInfo { hasNextPage }
      }
    }`,
    variables: (t) => ({ thread: t.thread }),
    expected: gqlData({ memoriesConnection: { edges: [], pageInfo: { hasNextPage: false } } }),
  }),
  gql({
    name: "recall(threadId: A's)",
    fields: ["Query.recall"],
    query: `query ($thread: ID!) {
      recall(query: "lighthouse renovation budget", limit: 100, threadId: $thread) {
        total queryType results { id content relevance memory { ${MEMORY_SELECTION} } }
      }
    }`,
    variables: (t) => ({ thread: t.thread }),
    expected: gqlData({ recall: { total: 0, queryType: "thread", results: [] } }),
  }),
];

/** Routes and fields with no id to give: searched with A's words, they show B's own records only. */
const idFreeCases: Case[] = [
  rest({ route: "GET /api/v1/memory/search", path: () => "/api/v1/memory/search?query=lighthouse%20renovation%20chowder&limit=100", expected: { status: 200 } }),
  rest({
    route: "POST /api/v1/memory/search",
    path: () => "/api/v1/memory/search",
    body: () => ({ query: "lighthouse renovation chowder", limit: 100, filter: { metadata: [{ path: "project", exists: true }] } }),
    expected: { status: 200 },
  }),
  rest({ route: "GET /api/v1/export", path: () => "/api/v1/export?history=true&embeddings=true", expected: { status: 200 } }),
  rest({
    route: "GET /api/v1/threads",
    path: () => "/api/v1/threads?limit=100",
    expected: { status: 200, body: { threads: [], total: 0, limit: 100, offset: 0, has_more: false } },
  }),
  gql({
    name: "searchMemories with A's words",
    fields: ["Query.searchMemories"],
    query: `{ searchMemories(query: "lighthouse renovation chowder", limit: 100) { total results { id content memory { ${MEMORY_SELECTION} } } } }`,
    expected: { status: 200 },
  }),
  gql({
    name: "me, threads, apiKeys",
    fields: ["Query.me", "Query.threads", "Query.apiKeys"],
    query: `{ me { id handle } threads(limit: 100) { total items { ${THREAD_SELECTION} } } apiKeys { id name prefix current } }`,
    expected: { status: 200 },
  }),
  gql({
    name: "revokeApiKey(id: A's key)",
    fields: ["Mutation.revokeApiKey"],
    query: `mutation ($id: ID!) { revokeApiKey(id: $id) { id name prefix revoked revokedAt createdAt } }`,
    variables: (t) => ({ id: t.key }),
    expected: gqlError("NOT_FOUND"),
  }),
];

/** The deprecated workspace routes: the owner is the key's user, whatever workspaceId and userId say. */
const legacyCases: Case[] = [
  rest({ route: "GET /api/v1/memories", path: (t) => `/api/v1/memories?workspaceId=${t.workspace}`, expected: { status: 200, body: EMPTY_PAGE } }),
  rest({
    route: "GET /api/v1/memories",
    // legacy clients send the userId they used to: accepted, and ignored for scoping
    path: (t) => `/api/v1/memories?workspaceId=${t.workspace}&userId=${t.legacyUser}`,
    expected: { status: 200, body: EMPTY_PAGE },
  }),
  gql({
    name: "legacyMemories(workspaceId: A's)",
    fields: ["Query.legacyMemories"],
    query: `query ($ws: String!) { legacyMemories(workspaceId: $ws, limit: 100) { total items { ${MEMORY_SELECTION} } } }`,
    variables: (t) => ({ ws: t.workspace }),
    expected: gqlData({ legacyMemories: { total: 0, items: [] } }),
  }),
  // B may write into a workspace of the same name: the memory is B's, and A's listing does not change
  rest({
    route: "POST /api/v1/memories",
    path: () => "/api/v1/memories",
    body: (t) => ({ workspaceId: t.workspace, userId: t.legacyUser, content: "bob legacy note", kind: "task" }),
    note: "{workspaceId: A's, userId: A's}",
    expected: { status: 201, body: expect.objectContaining({ content: "bob legacy note", kind: "task" }) },
  }),
  gql({
    name: "legacyCreateMemory(input: {workspaceId: A's, userId: A's})",
    fields: ["Mutation.legacyCreateMemory"],
    query: `mutation ($ws: String!, $user: String!) {
      legacyCreateMemory(input: { workspaceId: $ws, userId: $user, content: "bob legacy graphql note", kind: "task" }) {
        id content thread { title }
      }
    }`,
    variables: (t) => ({ ws: t.workspace, user: t.legacyUser }),
    expected: gqlData({ legacyCreateMemory: { id: expect.any(String), content: "bob legacy graphql note", thread: null } }),
  }),
];

// Last: B sends A's Idempotency-Keys, with A's very requests. Keys belong to a user: B's request runs afresh
// (a replay would hand B A's response; a 409 would tell B that A used the key).
const idempotencyCases: Case[] = [
  rest({
    route: "POST /api/v1/memory",
    path: () => "/api/v1/memory",
    body: () => ALICE_IDEM_BODY,
    headers: (t) => ({ "idempotency-key": t.restIdemKey }),
    note: "with A's Idempotency-Key and A's body",
    expected: { status: 201, body: expect.objectContaining({ ...ALICE_IDEM_BODY, ok: true }) },
  }),
  rest({
    route: "POST /api/v1/memory",
    path: () => "/api/v1/memory",
    body: () => ({ content: "bob's own words" }),
    headers: (t) => ({ "idempotency-key": t.plainIdemKey }),
    note: "with A's Idempotency-Key and another body",
    expected: { status: 201, body: expect.objectContaining({ content: "bob's own words" }) },
  }),
  rest({
    route: "POST /api/v1/memory/batch",
    path: () => "/api/v1/memory/batch",
    body: () => [ALICE_IDEM_BODY],
    headers: (t) => ({ "idempotency-key": t.archivedIdemKey }),
    note: "with A's Idempotency-Key",
    expected: {
      status: 200,
      body: { summary: { total: 1, successful: 1, failed: 0 }, results: [{ success: true, id: expect.any(String) }] },
    },
  }),
  rest({
    route: "POST /api/v1/memories",
    path: () => "/api/v1/memories",
    body: legacyBody,
    headers: (t) => ({ "idempotency-key": t.legacyIdemKey }),
    note: "with A's Idempotency-Key and A's body",
    expected: { status: 201, body: expect.objectContaining({ content: ALICE_LEGACY_CONTENT }) },
  }),
  gql({
    name: "createMemory with A's Idempotency-Key and A's operation",
    fields: ["Mutation.createMemory"],
    query: ALICE_GQL_IDEM_QUERY,
    headers: (t) => ({ "idempotency-key": t.graphqlIdemKey }),
    expected: { status: 200, body: { data: { createMemory: { id: expect.any(String), content: expect.any(String) } } } },
  }),
];

/** A's webhook endpoint: B can neither remove it, nor read its deliveries, nor take over its secret. */
const webhookCases: Case[] = [
  rest({ route: "DELETE /api/v1/webhooks/:id", path: (t) => `/api/v1/webhooks/${t.webhook}`, expected: NOT_FOUND }),
  rest({ route: "GET /api/v1/webhooks", path: () => "/api/v1/webhooks", expected: { status: 200, body: { webhooks: [] } } }),
  rest({ route: "GET /api/v1/webhooks/:id/deliveries", path: (t) => `/api/v1/webhooks/${t.webhook}/deliveries`, expected: NOT_FOUND }),
  rest({ route: "POST /api/v1/webhooks/:id/enable", path: (t) => `/api/v1/webhooks/${t.webhook}/enable`, expected: NOT_FOUND }),
  rest({
    route: "POST /api/v1/webhooks/:id/rotate-secret",
    path: (t) => `/api/v1/webhooks/${t.webhook}/rotate-secret`,
    expected: NOT_FOUND,
  }),
  gql({
    name: "enableWebhook(id: A's)",
    fields: ["Mutation.enableWebhook"],
    query: `mutation ($id: ID!) { enableWebhook(id: $id) { id url enabled } }`,
    variables: (t) => ({ id: t.webhook }),
    expected: gqlError("NOT_FOUND"),
  }),
  gql({
    name: "webhookDeliveries(webhookId: A's)",
    fields: ["Query.webhookDeliveries"],
    query: `query ($id: ID!) { webhookDeliveries(webhookId: $id) { total items { id eventId status } } }`,
    variables: (t) => ({ id: t.webhook }),
    expected: gqlError("NOT_FOUND"),
  }),
  gql({
    name: "rotateWebhookSecret(id: A's)",
    fields: ["Mutation.rotateWebhookSecret"],
    query: `mutation ($id: ID!) { rotateWebhookSecret(id: $id) { secret webhook { id url } } }`,
    variables: (t) => ({ id: t.webhook }),
    expected: gqlError("NOT_FOUND"),
  }),
  gql({
    name: "deleteWebhook(id: A's)",
    fields: ["Mutation.deleteWebhook"],
    query: `mutation ($id: ID!) { deleteWebhook(id: $id) }`,
    variables: (t) => ({ id: t.webhook }),
    expected: gqlError("NOT_FOUND"),
  }),
  gql({ name: "webhooks", fields: ["Query.webhooks"], query: `{ webhooks { id url description } }`, expected: gqlData({ webhooks: [] }) }),
];

const CASES: Case[] = [
  ...memoryCases,
  ...threadCases,
  ...spellingCases,
  ...threadWriteCases,
  ...threadFilterCases,
  ...idFreeCases,
  ...legacyCases,
  ...idempotencyCases,
  ...webhookCases,
];

/** Routes and fields that take no id of any kind (path, query or body), so there is nothing of A's to aim at. */
const REST_WITHOUT_IDS = new Set(["POST /api/v1/threads", "POST /api/v1/webhooks"]);
/**
 * Import keeps the ids it reads (an export's round trip needs them), so B's import naming an id of A's cannot be
 * answered as one naming nothing: that line fails, as documented, showing nothing of A's record and changing
 * nothing of it. It has its own test below, outside the indistinguishable cases.
 */
const IMPORT_ROUTE = "POST /api/v1/import";
const GRAPHQL_WITHOUT_IDS = new Set(["Mutation.createThread", "Mutation.createApiKey", "Mutation.createWebhook"]);

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME_ANYWHERE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/** A response with the targets named, and B's own fresh ids and times blanked: A's and nobody's must match. */
function normalized(res: HttpResult<unknown>, t: Targets): string {
  let text = `${res.status} replayed=${res.headers.get("idempotent-replayed")} ${res.text}`;
  for (const [name, value] of Object.entries(t).sort(([, a], [, b]) => b.length - a.length)) {
    text = text.replaceAll(value, `<${name}>`).replaceAll(value.toUpperCase(), `<${name}>`);
  }
  return text.replace(UUID_ANYWHERE, "<uuid>").replace(TIME_ANYWHERE, "<time>");
}

/** Does this GraphQL argument type take an ID anywhere (itself, in a list, or in a field of an input object)? */
function takesId(type: GraphQLInputType, seen = new Set<string>()): boolean {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return takesId(inner.ofType, seen);
  const named = getNamedType(inner);
  if (named.name === "ID") return true;
  if (!isInputObjectType(named) || seen.has(named.name)) return false;
  seen.add(named.name);
  return Object.values(named.getFields()).some((field) => takesId(field.type, seen));
}

function rootFields(): { name: string; takesId: boolean }[] {
  const schema = getSchema();
  return [schema.getQueryType(), schema.getMutationType()]
    .filter((type): type is GraphQLObjectType => type !== null && type !== undefined)
    .flatMap((type) =>
      Object.values(type.getFields()).map((field) => ({
        name: `${type.name}.${field.name}`,
        takesId: field.args.some((arg) => takesId(arg.type)),
      })),
    );
}

describe("security matrix coverage", () => {
  const covered = new Set(CASES.flatMap((c) => c.covers));

  it("has a case for every REST route that takes an id, and for every other route but the declared id-free ones", () => {
    const routes = createRouter()
      .list()
      .map((route) => ({ name: `${route.method} ${route.pattern}`, takesId: route.pattern.includes("/:") }));
    const idRoutes = routes.filter((route) => route.takesId).map((route) => route.name);
    expect(idRoutes).toEqual(expect.arrayContaining(["GET /api/v1/memories/:id", "GET /api/v1/threads/:id"]));
    expect(idRoutes.filter((route) => !covered.has(route)), "id-taking routes without a security case").toEqual([]);
    const uncovered = routes
      .map((route) => route.name)
      .filter((route) => !covered.has(route) && !REST_WITHOUT_IDS.has(route) && route !== IMPORT_ROUTE);
    expect(uncovered, "routes neither covered nor declared id-free").toEqual([]);
    for (const route of REST_WITHOUT_IDS) expect(routes).toContainEqual({ name: route, takesId: false });
    // and no case names a route that does not exist
    const known = new Set(routes.map((route) => route.name));
    expect([...covered].filter((name) => /^[A-Z]+ \//.test(name) && !known.has(name))).toEqual([]);
  });

  it("has a case for every GraphQL field that takes an id, and for every other field but the declared id-free ones", () => {
    const fields = rootFields();
    const idFields = fields.filter((field) => field.takesId).map((field) => field.name);
    expect(idFields).toEqual(expect.arrayContaining(["Query.memory", "Query.thread", "Mutation.revokeApiKey", "Mutation.batchCreateMemories"]));
    expect(idFields.filter((field) => !covered.has(field)), "id-taking fields without a security case").toEqual([]);
    const uncovered = fields.map((field) => field.name).filter((field) => !covered.has(field) && !GRAPHQL_WITHOUT_IDS.has(field));
    expect(uncovered, "fields neither covered nor declared id-free").toEqual([]);
    for (const field of GRAPHQL_WITHOUT_IDS) expect(fields).toContainEqual({ name: field, takesId: false });
    const known = new Set(fields.map((field) => field.name));
    expect([...covered].filter((name) => /^(Query|Mutation)\./.test(name) && !known.has(name))).toEqual([]);
  });
});

describe.skipIf(databaseUnavailable())("security matrix: user B aims at user A's ids", () => {
  let server: TestServer;
  let alice: TestUser;
  let ctx: Ctx;
  let A: Targets;
  /** Strings only A's records hold: none may appear in a response to B unless B sent it. */
  let secrets: { label: string; value: string }[];
  let before: { rows: unknown; view: unknown };
  let aliceIdemResponse: HttpResult<unknown>;
  let aliceGqlIdemResponse: HttpResult<unknown>;

  const sqlSnapshot = async () => {
    const sql = server.app.db.sql;
    const rows = (table: string, order: string) =>
      sql.query<Record<string, unknown>>(`SELECT * FROM ${table} WHERE user_id = $1::uuid ORDER BY ${order}`, [alice.userId]);
    return {
      users: await sql.query("SELECT * FROM users WHERE id = $1::uuid", [alice.userId]),
      memories: await rows("memories", "id"),
      threads: await rows("threads", "id"),
      terms: await rows("memory_terms", "memory_id, term"),
      idempotency: await rows("idempotency_records", "key"),
      webhooks: await rows("webhooks", "id"),
      // last_used_at moves with A's own use of the key (at most once a minute): not B's doing
      apiKeys: (await rows("api_keys", "id")).map(({ last_used_at: _, ...key }) => key),
    };
  };

  /** Everything A sees of A's records through the API. */
  const aliceView = async () => {
    const get = async (path: string) => {
      const res = await alice.api.get<unknown>(path);
      return { status: res.status, body: res.body };
    };
    const ids = (res: HttpResult<{ results: { id: string }[] }>) => res.body.results.map((r) => r.id).sort();
    return {
      records: await Promise.all(MEMORY_TARGETS.map((k) => get(`/api/v1/memories/${A[k]}`))),
      list: await get("/api/v1/memory?limit=100"),
      archived: await get("/api/v1/memory?is_archived=true"),
      byThread: await get(`/api/v1/memory?thread_id=${A.thread}`),
      thread: await get(`/api/v1/threads/${A.thread}?include_memories=true&limit=100`),
      threads: await get("/api/v1/threads"),
      legacy: await get(`/api/v1/memories?workspaceId=${A.workspace}`),
      search: ids(await alice.api.get<{ results: { id: string }[] }>("/api/v1/memory/search?query=lighthouse&limit=100")),
      recall: ids(await alice.api.get<{ results: { id: string }[] }>(`/api/v1/memory/recall?query=lighthouse&limit=100&thread_id=${A.thread}`)),
      keys: (await alice.api.graphql<{ apiKeys: unknown[] }>("{ apiKeys { id name prefix revoked revokedAt } }")).body,
    };
  };

  beforeAll(async () => {
    // A's webhook is on loopback, and wants only an event A's set-up never makes: nothing is sent to it
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
    alice = await server.newUser();
    const bob = await server.newUser();
    const a = alice.api;
    const created = async (res: Promise<HttpResult<{ id: string }>>, status = 201) => {
      const done = await res;
      expect(done.status, done.text).toBe(status);
      return done.body.id;
    };
    const token = (label: string) => `zq${label}${hex()}`;
    const T = {
      memory: token("plain"),
      tag: token("tag"),
      meta: token("meta"),
      archived: token("archived"),
      title: token("title"),
      description: token("description"),
      threadMeta: token("threadmeta"),
      threaded: token("threaded"),
      structured: token("structured"),
    };
    const workspace = ALICE_WORKSPACE;
    const legacyUser = ALICE_LEGACY_USER;
    const keys = {
      restIdemKey: `idem-rest-${hex()}`,
      plainIdemKey: `idem-plain-${hex()}`,
      archivedIdemKey: `idem-archived-${hex()}`,
      graphqlIdemKey: `idem-gql-${hex()}`,
      legacyIdemKey: `idem-legacy-${hex()}`,
    };
    const withKey = (key: string): RequestOptions => ({ headers: { "idempotency-key": key } });

    const remember = (body: Record<string, unknown>, options?: RequestOptions) =>
      created(a.post<{ id: string }>("/api/v1/memory", body, options));

    const thread = await created(
      a.post<{ id: string }>("/api/v1/threads", {
        title: `alice lighthouse project ${T.title}`,
        description: `renovation plans ${T.description}`,
        metadata: { budget: T.threadMeta },
      }),
    );
    const webhook = await a.post<{ id: string; secret: string }>("/api/v1/webhooks", {
      url: `http://127.0.0.1:9/${T.memory}`,
      events: ["thread.deleted"],
      description: `alice lighthouse hook ${T.title}`,
    });
    expect(webhook.status, webhook.text).toBe(201);
    aliceIdemResponse = await a.post<unknown>("/api/v1/memory", ALICE_IDEM_BODY, withKey(keys.restIdemKey));
    expect(aliceIdemResponse.status).toBe(201);
    aliceGqlIdemResponse = await a.graphql<unknown>(ALICE_GQL_IDEM_QUERY, undefined, withKey(keys.graphqlIdemKey));
    expect(aliceGqlIdemResponse.status).toBe(200);
    A = {
      memory: await remember(
        {
          content: `alice prefers window seats on lighthouse tours ${T.memory}`,
          type: "preference",
          tags: [T.tag],
          metadata: { note: T.meta },
        },
        withKey(keys.plainIdemKey),
      ),
      archived: await remember(
        { content: `alice archived journal about lighthouse lamps ${T.archived}`, is_archived: true },
        withKey(keys.archivedIdemKey),
      ),
      threaded: await remember({ content: `alice lighthouse renovation budget ${T.threaded}`, thread_id: thread }),
      structured: await remember({ content: { dish: "lighthouse chowder", secret: T.structured }, thread_id: thread }),
      legacy: await created(a.post<{ id: string }>("/api/v1/memories", legacyBody({ workspace, legacyUser }), withKey(keys.legacyIdemKey))),
      idempotent: (aliceIdemResponse.body as { id: string }).id,
      graphqlIdempotent: (aliceGqlIdemResponse.body as { data: { createMemory: { id: string } } }).data.createMemory.id,
      thread,
      key: alice.keyId,
      webhook: webhook.body.id,
      workspace,
      legacyUser,
      ...keys,
    };
    secrets = [
      ...Object.entries(T).map(([label, value]) => ({ label: `token ${label}`, value })),
      { label: "idempotent content", value: ALICE_IDEM_BODY.content },
      { label: "legacy content", value: ALICE_LEGACY_CONTENT },
      { label: "graphql idempotent content", value: /zqgidem[0-9a-f]+/.exec(ALICE_GQL_IDEM_QUERY)![0] },
      ...MEMORY_TARGETS.map((k) => ({ label: `id of ${k}`, value: A[k] })),
      { label: "thread id", value: A.thread },
      { label: "key id", value: A.key },
      { label: "webhook id", value: A.webhook },
      { label: "webhook secret", value: webhook.body.secret },
      { label: "key", value: alice.key },
      { label: "key prefix", value: alice.key.slice(0, 12) },
      { label: "user id", value: alice.userId },
      { label: "handle", value: alice.handle },
    ];

    const recorder = new Recorder(server.url, bob.key);
    const bobMemory = (await recorder.post<{ id: string }>("/api/v1/memory", { content: "bob grows tomatoes in the garden" })).body.id;
    ctx = { bob: recorder, bobMemory };

    // A's records as A sees them, then as the database holds them (A makes no request until the matching snapshot)
    const view = await aliceView();
    expect(view.records.map((r) => r.status)).toEqual(MEMORY_TARGETS.map(() => 200));
    expect(view.search.length).toBeGreaterThanOrEqual(4);
    expect(view.recall).toEqual([A.threaded, A.structured].sort());
    before = { view, rows: await sqlSnapshot() };
  });
  afterAll(() => server?.close());

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const theirs = await c.send(ctx, A);
    const sent = ctx.bob.last;
    const none = nothing();
    const missing = await c.send(ctx, none);

    expect(theirs.status, theirs.text).toBe(c.expected.status);
    if ("body" in c.expected) expect(theirs.body).toEqual(c.expected.body);
    // never A's replayed response, never any of A's data
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    for (const secret of secrets) {
      if (!sent.includes(secret.value)) expect(theirs.text, `the response shows A's ${secret.label}`).not.toContain(secret.value);
    }
    // indistinguishable from the same request at ids that name nothing
    expect(normalized(theirs, A)).toBe(normalized(missing, none));
  });

  it("an import naming A's ids fails those lines (documented), shows nothing of A's and stores nothing", async () => {
    const lines = [
      { kind: "thread", id: A.thread, title: "hijacked by bob" },
      { kind: "memory", id: A.memory, content: "hijacked by bob" },
      { kind: "memory", id: A.threaded.toUpperCase(), content: "hijacked by bob", thread_id: A.thread },
    ];
    const res = await ctx.bob.request<unknown>("POST", "/api/v1/import", {
      raw: lines.map((line) => JSON.stringify(line)).join("\n"),
      headers: { "content-type": "application/x-ndjson" },
    });
    const taken = { code: "VALIDATION_ERROR", message: "id is in use, not by one of your records: leave it out to import this record under a new id" };
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      created: 0,
      updated: 0,
      skipped: 0,
      failed: 3,
      results: [
        { line: 1, kind: "thread", id: A.thread, status: "failed", error: taken },
        { line: 2, kind: "memory", id: A.memory, status: "failed", error: taken },
        { line: 3, kind: "memory", id: expect.stringMatching(new RegExp(`^${A.threaded}$`, "i")), status: "failed", error: expect.any(Object) },
      ],
    });
    const sent = JSON.stringify(lines).toLowerCase();
    for (const secret of secrets) {
      if (!sent.includes(secret.value.toLowerCase())) expect(res.text, `the response shows A's ${secret.label}`).not.toContain(secret.value);
    }
  });

  it("left every record of A's as it was, in the database and through the API", async () => {
    expect(await sqlSnapshot()).toEqual(before.rows);
    expect(await aliceView()).toEqual(before.view);
  });

  it("left B's own memory out of A's thread", async () => {
    const own = await ctx.bob.get<{ thread_id: string | null; content: string }>(`/api/v1/memories/${ctx.bobMemory}`);
    expect(own.body).toMatchObject({ thread_id: null, content: "bob grows tomatoes in the garden" });
  });

  it("still replays A's idempotent requests to A, unchanged by B's use of the same keys", async () => {
    const again = await alice.api.post<unknown>("/api/v1/memory", ALICE_IDEM_BODY, { headers: { "idempotency-key": A.restIdemKey } });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(aliceIdemResponse.body);
    const gqlAgain = await alice.api.graphql<unknown>(ALICE_GQL_IDEM_QUERY, undefined, { headers: { "idempotency-key": A.graphqlIdemKey } });
    expect(gqlAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(gqlAgain.body).toEqual(aliceGqlIdemResponse.body);
  });

  it("keeps A's and B's reads apart when they arrive together (coalesced look-ups are per user)", async () => {
    const reads = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? alice.api.get<{ id: string }>(`/api/v1/memories/${A.memory}`)
          : ctx.bob.get<{ id: string }>(`/api/v1/memories/${A.memory}`),
      ),
    );
    expect(reads.map((r) => r.status)).toEqual(reads.map((_, i) => (i % 2 === 0 ? 200 : 404)));
    const gqlReads = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? alice.api : ctx.bob).graphql<{ memory: { id: string } | null }>(`query ($id: ID!) { memory(id: $id) { id } }`, {
          id: A.memory,
        }),
      ),
    );
    expect(gqlReads.map((r) => r.body.data?.memory?.id ?? null)).toEqual(gqlReads.map((_, i) => (i % 2 === 0 ? A.memory : null)));
  });
});

describe.skipIf(databaseUnavailable())("a revoked key is refused on the very next request", () => {
  let server: TestServer;
  let dataDir: string | undefined;
  let ownConnection: Database | undefined;

  const UNAUTHORIZED = { error: { code: "UNAUTHORIZED", message: expect.any(String) } };
  const REVOKE = `mutation ($id: ID!) { revokeApiKey(id: $id) { id revoked revokedAt } }`;

  beforeAll(async () => {
    // on PGlite the keys CLI reaches a running server through the control socket in its data directory
    if (databaseUnderTest() === "pglite") dataDir = mkdtempSync(join(tmpdir(), "security-matrix-"));
    server = await startTestServer(dataDir ? { DATA_DIR: dataDir } : {});
  });
  afterAll(async () => {
    await ownConnection?.close();
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The keys CLI run as another process: through the server's control socket (PGlite), else on its own connection. */
  const cli = async (): Promise<KeyAdmin> => {
    if (dataDir) return remoteKeyAdmin(dataDir);
    ownConnection ??= await openDatabase(server.app.config, "command");
    return keyAdmin({ users: new UserService(ownConnection), apiKeys: new ApiKeyService(ownConnection) });
  };

  interface Victim extends TestUser {
    memoryId: string;
  }

  const newVictim = async (): Promise<Victim> => {
    const user = await server.newUser();
    const created = await user.api.post<{ id: string }>("/api/v1/memory", { content: "victim's note" });
    expect(created.status).toBe(201);
    return { ...user, memoryId: created.body.id };
  };

  const revokers: [string, (victim: TestUser) => Promise<void>][] = [
    [
      "GraphQL revokeApiKey sent with the key itself",
      async (victim) => {
        const res = await victim.api.graphql<{ revokeApiKey: { id: string; revoked: boolean } }>(REVOKE, { id: victim.keyId });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data?.revokeApiKey).toMatchObject({ id: victim.keyId, revoked: true });
      },
    ],
    [
      "GraphQL revokeApiKey sent with another key of the same user",
      async (victim) => {
        const second = await keyAdmin(server.app.services).create(victim.handle, "second");
        const res = await server.client(second.key).graphql<{ revokeApiKey: { revoked: boolean } }>(REVOKE, { id: victim.keyId });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data?.revokeApiKey.revoked).toBe(true);
      },
    ],
    [
      "keyAdmin(services).revoke, the keys CLI code path inside the server",
      async (victim) => {
        expect(await keyAdmin(server.app.services).revoke(victim.keyId)).toMatchObject({ id: victim.keyId, revokedAt: expect.any(String) });
      },
    ],
    [
      "the keys CLI from another process (control socket on PGlite, its own connection on PostgreSQL)",
      async (victim) => {
        expect(await (await cli()).revoke(victim.keyId)).toMatchObject({ id: victim.keyId, revokedAt: expect.any(String) });
      },
    ],
  ];

  const restRequest = (victim: Victim) => victim.api.get<unknown>(`/api/v1/memories/${victim.memoryId}`);
  const graphqlRequest = (victim: Victim) =>
    victim.api.graphql<unknown>(`query ($id: ID!) { memory(id: $id) { id content } }`, { id: victim.memoryId });

  /**
   * Where the service caches principals (the embedded database: one writer), proves the victim's key is served
   * from that cache right now: a revocation written straight into the database, behind the service's back, is not
   * seen. So a revocation that then works has evicted the cached key. Without a cache the database answers at once.
   */
  const expectServedFromCache = async (victim: Victim) => {
    const sql = server.app.db.sql;
    await sql.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1::uuid", [victim.keyId]);
    const status = (await restRequest(victim)).status;
    await sql.query("UPDATE api_keys SET revoked_at = NULL WHERE id = $1::uuid", [victim.keyId]);
    expect(status, server.app.db.singleWriter ? "the key should be served from the principal cache" : "no cache: the database decides").toBe(
      server.app.db.singleWriter ? 200 : 401,
    );
    expect((await restRequest(victim)).status).toBe(200);
  };

  const memoryCount = async (victim: Victim) =>
    (await server.app.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM memories WHERE user_id = $1::uuid", [victim.userId]))[0]!.n;

  const cases = revokers.flatMap(([name, revoke]) =>
    (["REST", "GraphQL"] as const).map((first) => [`${name}; next request on ${first}`, revoke, first] as const),
  );

  it.each(cases)("%s", async (_name, revoke, first) => {
    const victim = await newVictim();
    expect((await restRequest(victim)).status).toBe(200);
    expect((await graphqlRequest(victim)).status).toBe(200);
    await expectServedFromCache(victim);

    await revoke(victim);

    const next = first === "REST" ? await restRequest(victim) : await graphqlRequest(victim);
    expect(next.status).toBe(401);
    if (first === "REST") expect(next.body).toEqual(UNAUTHORIZED);
    else expect((next.body as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code).toBe("UNAUTHORIZED");
    expect(next.text).not.toContain("victim's note");

    const count = await memoryCount(victim);
    const others = await Promise.all([
      first === "REST" ? graphqlRequest(victim) : restRequest(victim),
      server.client().get<unknown>("/api/v1/memory", { headers: { "x-service-api-key": victim.key } }),
      victim.api.post<unknown>("/api/v1/memory", { content: "written with a revoked key" }),
      victim.api.graphql<unknown>(`mutation { createMemory(input: { content: "written with a revoked key" }) { id } }`),
      victim.api.post<unknown>("/api/v1/memories", { workspaceId: "w", content: "written with a revoked key" }),
    ]);
    expect(others.map((res) => res.status)).toEqual(others.map(() => 401));
    expect(await memoryCount(victim)).toBe(count);
  });

  const bursts = revokers.flatMap(([name, revoke]) =>
    (["warm", "cold"] as const).map((cache) => [`${name}, during a burst (${cache} cache)`, revoke, cache] as const),
  );

  it.each(bursts)("%s: every request issued after the revocation answered is refused", async (_name, revoke, cache) => {
    const victim = await newVictim();
    if (cache === "warm") await expectServedFromCache(victim);
    const requests = [
      () => restRequest(victim),
      () => graphqlRequest(victim),
      () => victim.api.get<unknown>("/api/v1/memory?limit=1"),
      () => victim.api.graphql<unknown>("{ me { id } }"),
    ];
    const outcomes: { issuedAfter: boolean; answeredAfter: boolean; status: number }[] = [];
    let revoked = false;
    const AFTER_PER_WORKER = 6;
    const worker = async (w: number) => {
      for (let i = 0, after = 0; after < AFTER_PER_WORKER; i++) {
        if (i > 2_000) throw new Error("the revocation never completed");
        const issuedAfter = revoked;
        const res = await requests[(w + i) % requests.length]!();
        outcomes.push({ issuedAfter, answeredAfter: revoked, status: res.status });
        if (issuedAfter) after++;
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    if (cache === "warm") {
      // revoke once the burst is well under way
      while (outcomes.filter((o) => o.status === 200).length < 16) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await revoke(victim);
    revoked = true;
    await Promise.all(workers);

    const afterwards = outcomes.filter((o) => o.issuedAfter);
    expect(afterwards.length).toBe(8 * AFTER_PER_WORKER);
    expect(afterwards.map((o) => o.status)).toEqual(afterwards.map(() => 401));
    // requests issued before may go either way, but never fail otherwise
    const earlier = outcomes.filter((o) => !o.issuedAfter);
    expect(earlier.filter((o) => o.status !== 200 && o.status !== 401)).toEqual([]);
    // the burst really was in flight while the key was revoked
    expect(earlier.some((o) => o.answeredAfter)).toBe(true);
    if (cache === "warm") expect(earlier.filter((o) => o.status === 200).length).toBeGreaterThanOrEqual(16);
    expect((await restRequest(victim)).status).toBe(401);
  });
});
