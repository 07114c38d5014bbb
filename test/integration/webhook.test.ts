import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { runCli, serverProcess, type ServerProcess } from "../support/child-processes.ts";
import { HttpClient } from "../support/http.ts";
import {
  databaseUnavailable,
  databaseUnderTest,
  freshPostgresDatabase,
  serverWithUser,
  startTestServer,
  suiteDatabase,
  type TestServer,
  type TestUser,
} from "../support/server.ts";
import { WebhookReceiver } from "../../scripts/lib/webhook-receiver.ts";
import { firstAttemptsRecorded, type FirstOutcome } from "../../src/webhooks/due-delivery.ts";

const DELIVERIES = /* GraphQL */ `
  query($id: ID!) { webhookDeliveries(webhookId: $id) { total items { status attempts responseStatus lastError eventType } } }
`;
const LISTED = /* GraphQL */ `
  query($id: ID!, $status: WebhookDeliveryStatus, $limit: Int, $offset: Int) {
    webhookDeliveries(webhookId: $id, status: $status, limit: $limit, offset: $offset) {
      total hasMore items { id eventId status attempts responseStatus createdAt deliveredAt }
    }
  }
`;

const LISTED_ALL = /* GraphQL */ `
  query($id: ID!) { webhookDeliveries(webhookId: $id, limit: 100) { items { id status attempts lastError } } }
`;

async function receiver(): Promise<WebhookReceiver> {
  const started = await WebhookReceiver.start();
  onTestFinished(() => started.close());
  return started;
}

const register = async (who: TestUser, url: string, events?: string[]) => {
  const res = await who.api.post("/api/v1/webhooks", { url, ...(events ? { events } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string; events: string[] };
};

const until = async (done: () => Promise<boolean>, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe.skipIf(databaseUnavailable())("webhooks: endpoints on private addresses refused (the default)", () => {
  const suite = serverWithUser();

  it.each([
    ["loopback", "https://127.0.0.1/hook"],
    ["a name for loopback", "https://localhost/hook"],
    ["IPv6 loopback", "https://[::1]/hook"],
    ["the metadata address", "https://169.254.169.254/latest/meta-data"],
    ["a private network", "https://10.1.2.3/hook"],
    ["IPv4-mapped IPv6", "https://[::ffff:10.0.0.1]/hook"],
    ["IPv4-translated IPv6 (SIIT)", "https://[::ffff:0:7f00:1]/hook"],
  ])("refuses %s with 400", async (_name, url) => {
    const res = await suite.user.api.post("/api/v1/webhooks", { url });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
  });

  it("refuses plain http, and says so over GraphQL too", async () => {
    expect((await suite.user.api.post("/api/v1/webhooks", { url: "http://93.184.215.14/hook" })).status).toBe(400);
    const res = await suite.user.api.graphql(`mutation { createWebhook(url: "https://10.0.0.1/") { secret } }`);
    expect(res.body.errors?.[0]?.extensions?.code).toBe("VALIDATION_ERROR");
  });

  it("accepts an https URL on a public address", async () => {
    const res = await suite.user.api.post("/api/v1/webhooks", { url: "https://93.184.215.14/hook" });
    expect(res.status, res.text).toBe(201);
  });
});

describe.skipIf(databaseUnavailable())("webhooks", () => {
  const suite = serverWithUser({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "100" });

  describe("registration (REST)", () => {
    it("takes a description as a thread's: trimmed, never blank, at most 500 characters", async () => {
      const who = await suite.server.newUser();
      const trimmed = await who.api.post("/api/v1/webhooks", { url: "http://127.0.0.1:9/d", description: "  CRM  " });
      expect(trimmed.body.description).toBe("CRM");
      for (const description of ["", "   "]) {
        const blank = await who.api.post("/api/v1/webhooks", { url: "http://127.0.0.1:9/d", description });
        expect(blank.status).toBe(400);
        expect(blank.body.error.message).toBe("description must not be empty");
      }
      // counted in characters, as a thread's are: 500 emoji are 1 000 UTF-16 units
      expect((await who.api.post("/api/v1/webhooks", { url: "http://127.0.0.1:9/d", description: "🙂".repeat(500) })).status).toBe(201);
      expect((await who.api.post("/api/v1/webhooks", { url: "http://127.0.0.1:9/d", description: "x".repeat(501) })).status).toBe(400);
    });

    it("answers 201 with the secret once; lists without it; deletes", async () => {
      const who = await suite.server.newUser();
      const created = await who.api.post("/api/v1/webhooks", { url: "http://127.0.0.1:9/a", description: "CRM" });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        url: "http://127.0.0.1:9/a",
        description: "CRM",
        enabled: true,
        events: ["memory.created", "memory.updated", "memory.deleted", "thread.created", "thread.updated", "thread.deleted"],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      });
      const listed = await who.api.get("/api/v1/webhooks");
      expect(listed.body.webhooks).toHaveLength(1);
      expect(listed.body.webhooks[0]).not.toHaveProperty("secret");
      expect(listed.text).not.toContain(created.body.secret);
      expect((await who.api.delete(`/api/v1/webhooks/${created.body.id}`)).status).toBe(200);
      expect((await who.api.get("/api/v1/webhooks")).body.webhooks).toEqual([]);
      expect((await who.api.delete(`/api/v1/webhooks/${created.body.id}`)).status).toBe(404);
    });

    it("refuses an unknown event type, and another user's webhook is not found", async () => {
      const who = await suite.server.newUser();
      expect((await who.api.post("/api/v1/webhooks", { url: "http://127.0.0.1:9/", events: ["memory.eaten"] })).status).toBe(400);
      const { id } = await register(who, "http://127.0.0.1:9/", ["memory.created"]);
      const other = await suite.server.newUser();
      expect((await other.api.delete(`/api/v1/webhooks/${id}`)).status).toBe(404);
      expect((await other.api.graphql(DELIVERIES, { id })).body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    });

    it("holds a user to 20 webhooks, however many creates arrive at once", async () => {
      const who = await suite.server.newUser();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => who.api.post("/api/v1/webhooks", { url: `http://127.0.0.1:9/${i}` })),
      );
      expect(answers.filter((res) => res.status === 201)).toHaveLength(20);
      const refused = answers.filter((res) => res.status !== 201);
      expect(refused.map((res) => res.body.error.message)).toEqual(Array(10).fill("url cannot be added: you have 20 webhooks already, the most allowed"));
      expect((await who.api.get("/api/v1/webhooks")).body.webhooks).toHaveLength(20);
    });

    it("refuses port 0, where no delivery can go", async () => {
      const who = await suite.server.newUser();
      const res = await who.api.post("/api/v1/webhooks", { url: "http://127.0.0.1:0/x" });
      expect([res.status, res.body.error?.message]).toEqual([400, "url must not name port 0"]);
      expect((await who.api.get("/api/v1/webhooks")).body.webhooks).toHaveLength(0);
    });

    it("holds a URL to 2048 characters as stored, percent-encoded", async () => {
      const who = await suite.server.newUser();
      // 2 042 characters as sent (each emoji two UTF-16 units), 12 152 once each emoji is percent-encoded
      const res = await who.api.post("/api/v1/webhooks", { url: `http://127.0.0.1:9/?${"😀".repeat(1011)}` });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("url must be at most 2048 characters, as a URL (percent-encoded)");
      expect((await who.api.post("/api/v1/webhooks", { url: `http://127.0.0.1:9/?${"a".repeat(2020)}` })).status).toBe(201);
    });
  });

  describe("registration (GraphQL)", () => {
    it("createWebhook, webhooks, rotateWebhookSecret, deleteWebhook", async () => {
      const who = await suite.server.newUser();
      const created = await who.api.graphql(
        `mutation { createWebhook(url: "http://127.0.0.1:9/g", events: [MEMORY_CREATED], description: "g") { secret webhook { id events } } }`,
      );
      const { secret, webhook } = created.body.data.createWebhook;
      expect(webhook.events).toEqual(["MEMORY_CREATED"]);
      const rotated = await who.api.graphql(`mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id: webhook.id });
      expect(rotated.body.data.rotateWebhookSecret.secret).toMatch(/^whsec_/);
      expect(rotated.body.data.rotateWebhookSecret.secret).not.toBe(secret);
      expect((await who.api.graphql(`{ webhooks { id url description enabled } }`)).body.data.webhooks).toEqual([
        { id: webhook.id, url: "http://127.0.0.1:9/g", description: "g", enabled: true },
      ]);
      expect((await who.api.graphql(`mutation($id: ID!) { deleteWebhook(id: $id) }`, { id: webhook.id })).body.data.deleteWebhook).toBe(
        true,
      );
    });
  });

  describe("deliveries list", () => {
    it("REST pages them newest first, as GraphQL lists them, filtered by status; another user's webhook is 404", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      const { id } = await register(who, hook.url, ["memory.created"]);
      for (const content of ["one", "two", "three"]) await who.api.post("/api/v1/memory", { content });
      await hook.waitForAccepted(3);
      await until(async () => (await who.api.get(`/api/v1/webhooks/${id}/deliveries?status=delivered`)).body.total === 3);
      const first = await who.api.get(`/api/v1/webhooks/${id}/deliveries?limit=2`);
      expect(first.status, first.text).toBe(200);
      expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
      expect(first.body.deliveries[0]).toEqual({
        id: expect.any(String),
        event_id: expect.any(String),
        event_type: "memory.created",
        status: "delivered",
        attempts: 1,
        next_attempt_at: null,
        last_attempt_at: expect.any(String),
        response_status: 204,
        last_error: null,
        created_at: expect.any(String),
        delivered_at: expect.any(String),
      });
      const second = await who.api.get(`/api/v1/webhooks/${id}/deliveries?limit=2&offset=2`);
      expect(second.body).toMatchObject({ total: 3, offset: 2, has_more: false });
      const restIds = [...first.body.deliveries, ...second.body.deliveries].map((d: { id: string }) => d.id);
      const graphql = await who.api.graphql(`query($id: ID!) { webhookDeliveries(webhookId: $id) { items { id } } }`, { id });
      expect(graphql.body.data.webhookDeliveries.items.map((d: { id: string }) => d.id)).toEqual(restIds);
      // newest first: the last memory's delivery heads the list
      const newest = JSON.parse(hook.accepted.find((d) => d.headers["webhook-id"] === restIds[0])!.body);
      expect(newest.data.content).toBe("three");
      expect((await who.api.get(`/api/v1/webhooks/${id}/deliveries?status=failed`)).body).toMatchObject({ deliveries: [], total: 0 });
      expect((await who.api.get(`/api/v1/webhooks/${id}/deliveries?status=lost`)).status).toBe(400);
      const other = await suite.server.newUser();
      expect((await other.api.get(`/api/v1/webhooks/${id}/deliveries`)).status).toBe(404);
      expect((await who.api.get(`/api/v1/webhooks/not-an-id/deliveries`)).status).toBe(404);
    });
  });

  describe("enabling a disabled endpoint", () => {
    const disable = (id: string) =>
      suite.server.app.db.sql.query(
        "UPDATE webhooks SET enabled = false, disabled_reason = 'failing', failing_since = now() WHERE id = $1::uuid",
        [id],
      );

    it("REST POST /enable sends to it again from the next event; another user's is 404", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      const { id } = await register(who, hook.url, ["memory.created"]);
      await disable(id);
      await who.api.post("/api/v1/memory", { content: "while disabled" });
      const other = await suite.server.newUser();
      expect((await other.api.post(`/api/v1/webhooks/${id}/enable`, {})).status).toBe(404);
      expect((await who.api.get("/api/v1/webhooks")).body.webhooks[0].enabled).toBe(false);
      const enabled = await who.api.post(`/api/v1/webhooks/${id}/enable`, {});
      expect(enabled.status, enabled.text).toBe(200);
      expect(enabled.body).toMatchObject({ id, enabled: true, disabled_reason: null, failing_since: null });
      await who.api.post("/api/v1/memory", { content: "after enabling" });
      await hook.waitForAccepted(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.accepted.map((d) => JSON.parse(d.body).data.content)).toEqual(["after enabling"]);
    });

    it("REST /enable and /rotate-secret take no body, or an empty JSON object, and refuse anything else", async () => {
      const who = await suite.server.newUser();
      const { id } = await register(who, "http://127.0.0.1:9/actions", ["memory.created"]);
      for (const action of ["enable", "rotate-secret"]) {
        const path = `/api/v1/webhooks/${id}/${action}`;
        expect((await who.api.post(path)).status, `${action} without a body`).toBe(200);
        expect((await who.api.post(path, {})).status, `${action} with {}`).toBe(200);
        const refused = async (raw: string, contentType: string) => {
          const res = await who.api.post(path, undefined, { raw, headers: { "content-type": contentType } });
          return [res.status, res.body.error?.code, res.body.error?.message];
        };
        expect(await refused("x", "text/plain")).toEqual([415, "UNSUPPORTED_MEDIA_TYPE", expect.any(String)]);
        expect(await refused("garbage", "application/json")).toEqual([400, "INVALID_JSON", expect.any(String)]);
        expect(await refused('{"foo":1}', "application/json")).toEqual([400, "VALIDATION_ERROR", "foo is not a field of this request, which takes none"]);
        expect(await refused("[]", "application/json")).toEqual([400, "VALIDATION_ERROR", "body must be empty or an empty JSON object"]);
      }
    });

    it("GraphQL enableWebhook; another user's is NOT_FOUND", async () => {
      const who = await suite.server.newUser();
      const { id } = await register(who, "http://127.0.0.1:9/e", ["memory.created"]);
      await disable(id);
      const enable = `mutation($id: ID!) { enableWebhook(id: $id) { id enabled disabledReason failingSince } }`;
      const other = await suite.server.newUser();
      expect((await other.api.graphql(enable, { id })).body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      expect((await who.api.graphql(enable, { id })).body.data.enableWebhook).toEqual({
        id,
        enabled: true,
        disabledReason: null,
        failingSince: null,
      });
    });
  });

  describe("secret rotation", () => {
    it("REST: signs with the new and the previous secret during the overlap; another user's is 404", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      const { id, secret: old } = await register(who, hook.url, ["memory.created"]);
      const other = await suite.server.newUser();
      expect((await other.api.post(`/api/v1/webhooks/${id}/rotate-secret`, {})).status).toBe(404);
      const rotated = await who.api.post(`/api/v1/webhooks/${id}/rotate-secret`, {});
      expect(rotated.status, rotated.text).toBe(200);
      expect(rotated.body).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/) });
      expect(rotated.body.secret).not.toBe(old);
      const overlap = Date.parse(rotated.body.previous_secret_until) - Date.now();
      expect(overlap).toBeGreaterThan(23.9 * 3_600_000);
      expect(overlap).toBeLessThanOrEqual(24 * 3_600_000);
      await who.api.post("/api/v1/memory", { content: "signed twice" });
      await hook.waitForAccepted(1);
      const [delivery] = hook.accepted;
      expect(delivery!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
      for (const secret of [rotated.body.secret, old]) {
        const alone = delivery!.headers["webhook-signature"]!.split(" ").filter((signature) => {
          try {
            WebhookReceiver.verify(secret, { ...delivery!, headers: { ...delivery!.headers, "webhook-signature": signature } });
            return true;
          } catch {
            return false;
          }
        });
        expect(alone, "one signature by each secret").toHaveLength(1);
      }
    });

    it("GraphQL: rotateWebhookSecret answers previousSecretUntil; a second rotation drops the first secret", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      const { id, secret: first } = await register(who, hook.url, ["memory.created"]);
      const rotate = `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret webhook { previousSecretUntil } } }`;
      const once = (await who.api.graphql(rotate, { id })).body.data.rotateWebhookSecret;
      expect(Date.parse(once.webhook.previousSecretUntil)).toBeGreaterThan(Date.now());
      const twice = (await who.api.graphql(rotate, { id })).body.data.rotateWebhookSecret;
      await who.api.post("/api/v1/memory", { content: "after two rotations" });
      await hook.waitForAccepted(1);
      const [delivery] = hook.accepted;
      expect(WebhookReceiver.verify(twice.secret, delivery!).type).toBe("memory.created");
      expect(WebhookReceiver.verify(once.secret, delivery!).type).toBe("memory.created");
      expect(() => WebhookReceiver.verify(first, delivery!)).toThrow();
    });
  });

  describe("delivery", () => {
    const deliveryRows = (who: TestUser) =>
      suite.server.app.db.sql.query<{ id: string; status: string; attempts: number; payload: string | null }>(
        "SELECT d.id, d.status, d.attempts, d.payload FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.user_id = $1::uuid",
        [who.userId],
      );

    it("delivers every event of 200 mixed writes exactly once, each with a valid signature", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      const { id, secret } = await register(who, hook.url);
      // what the relay publishes, heard in process: the events the deliveries must match one for one
      const feed = suite.server.app.services.events.subscribe(who.userId)[Symbol.asyncIterator]();
      const published: string[] = [];
      const hearing = (async () => {
        for (let next = await feed.next(); !next.done; next = await feed.next()) published.push(`${next.value.type} ${next.value.objectId}`);
      })();
      const memories: string[] = [];
      const threads: string[] = [];
      for (let i = 0; i < 200; i++) {
        const api = who.api;
        if (i % 5 === 0) threads.push((await api.post("/api/v1/threads", { title: `t${i}` })).body.id);
        else if (i % 5 === 1 || i % 5 === 2) {
          memories.push((await api.post("/api/v1/memory", { content: `m${i}`, thread_id: threads.at(-1) })).body.id);
        } else if (i % 5 === 3) await api.patch(`/api/v1/memories/${memories.at(-1)}`, { tags: [`t${i}`] });
        else if (i % 10 === 4) await api.delete(`/api/v1/memories/${memories.shift()}`);
        else await api.delete(`/api/v1/threads/${threads.shift()}?delete_memories=true`);
      }
      // the outbox empty: every event published, its deliveries attempted and their rows written as it was taken out
      const left = () =>
        suite.server.app.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE user_id = $1::uuid", [who.userId]);
      for (let waited = 0; waited < 10_000 && (await left())[0]!.n > 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(published.length).toBeGreaterThanOrEqual(200);
      await hook.waitForAccepted(published.length);
      await new Promise((resolve) => setTimeout(resolve, 500)); // time for a duplicate to show itself
      await feed.return?.();
      await hearing;
      await hook.waitForAccepted(published.length); // the last events may have been heard after the first wait began
      const bodies = hook.accepted.map((delivery) => WebhookReceiver.verify(secret, delivery));
      expect(new Set(hook.accepted.map((d) => d.headers["webhook-id"])).size).toBe(hook.accepted.length);
      expect(bodies.map((b) => `${b.type} ${b.data.id}`).sort()).toEqual([...published].sort());
      const created = bodies.find((b) => b.type === "memory.created")!;
      expect(created.data).toMatchObject({ content: expect.any(String), tags: [], is_archived: false, thread_id: expect.any(String) });
      expect(bodies.find((b) => b.type === "memory.deleted")!.data).toEqual({ id: expect.any(String) });
      // each delivery is listed once, as its one attempt left it; nothing is left in the outbox
      const { total, items } = (await who.api.graphql(LISTED, { id, limit: 100, offset: 0 })).body.data.webhookDeliveries;
      const listed = [...items];
      for (let offset = 100; offset < total; offset += 100) {
        listed.push(...(await who.api.graphql(LISTED, { id, limit: 100, offset })).body.data.webhookDeliveries.items);
      }
      expect(listed.map((d: { id: string }) => d.id).sort()).toEqual(hook.accepted.map((d) => d.headers["webhook-id"]).sort());
      expect(listed.every((d: { status: string; attempts: number }) => d.status === "delivered" && d.attempts === 1)).toBe(true);
      // a delivery made keeps no copy of its body: nothing sends it again (the successes have no row of their own)
      expect(await deliveryRows(who)).toEqual([]);
      expect((await left())[0]!.n).toBe(0);
    });

    // the round's deliveries were begun in no order and at once: a receiver heard memory.deleted before memory.created,
    // and a thread deleted with its memories before their memory.deleted (outside probe)
    it("delivers an object's events in the order of its changes, a thread's after its memories'", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      hook.answerAfterMs = 3;
      const { secret } = await register(who, hook.url);
      const writers = Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 4; i++) {
          const { id } = (await who.api.post("/api/v1/memory", { content: `written then changed ${i}` })).body;
          await who.api.patch(`/api/v1/memories/${id}`, { tags: ["changed"] });
          await who.api.delete(`/api/v1/memories/${id}`);
        }
      });
      const thread = (await who.api.post("/api/v1/threads", { title: "to delete" })).body.id as string;
      const batch = await who.api.post("/api/v1/memory/batch", Array.from({ length: 5 }, (_, i) => ({ content: `in the thread ${i}`, thread_id: thread })));
      await Promise.all(writers);
      expect(batch.status).toBe(200);
      expect((await who.api.delete(`/api/v1/threads/${thread}?delete_memories=true`)).status).toBe(200);
      const expected = 8 * 4 * 3 + 1 + 5 + 5 + 1;
      await hook.waitForAccepted(expected);
      const heard = hook.attempts.map((delivery) => WebhookReceiver.verify(secret, delivery));
      expect(heard).toHaveLength(expected);
      const byObject = new Map<string, string[]>();
      for (const { type, data } of heard) byObject.set(String(data.id), [...(byObject.get(String(data.id)) ?? []), type]);
      const memories = [...byObject.values()].filter((types) => types[0]!.startsWith("memory."));
      expect(memories.filter((types) => types.length === 3)).toHaveLength(32);
      for (const types of memories) {
        expect(types).toEqual(types.length === 3 ? ["memory.created", "memory.updated", "memory.deleted"] : ["memory.created", "memory.deleted"]);
      }
      const threadDeleted = heard.findIndex(({ type, data }) => type === "thread.deleted" && data.id === thread);
      const lastMemoryDeleted = heard.findLastIndex(({ type }) => type === "memory.deleted");
      expect(threadDeleted).toBeGreaterThan(lastMemoryDeleted);
    });

    it("keeps a delivery's body while it is pending, for its retries, and drops it once the delivery is made", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      let accepting = false;
      hook.behaviour = () => (accepting ? 200 : 503);
      await register(who, hook.url, ["memory.created"]);
      await who.api.post("/api/v1/memory", { content: "kept for its retries" });
      await until(async () => (await deliveryRows(who))[0]?.status === "pending");
      expect((await deliveryRows(who))[0]!.payload).toBe(hook.attempts[0]!.body);
      accepting = true;
      await hook.waitForAccepted(1, 20_000);
      await until(async () => (await deliveryRows(who))[0]?.status === "delivered");
      expect((await deliveryRows(who))[0]!.payload).toBeNull();
    });

    it("lists the deliveries made at once and those retried together, newest first, by status and by page", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      let refuseNext = false;
      hook.behaviour = () => (refuseNext ? ((refuseNext = false), 503) : 204);
      const { id } = await register(who, hook.url, ["memory.created"]);
      const sent: string[] = [];
      for (const [i, refused] of [false, true, false].entries()) {
        refuseNext = refused;
        await who.api.post("/api/v1/memory", { content: `listed ${i}` });
        await hook.waitForAccepted(i + 1, 20_000);
        sent.push(hook.accepted[i]!.headers["webhook-id"]!);
      }
      await until(async () => (await who.api.graphql(LISTED, { id, status: "delivered" })).body.data.webhookDeliveries.total === 3);
      const all = (await who.api.graphql(LISTED, { id })).body.data.webhookDeliveries;
      expect(all.items.map((d: { id: string }) => d.id)).toEqual([...sent].reverse());
      expect(all.items.map((d: { attempts: number }) => d.attempts)).toEqual([1, 2, 1]);
      expect(all.items.every((d: { createdAt: string; deliveredAt: string }) => Date.parse(d.deliveredAt) >= Date.parse(d.createdAt))).toBe(true);
      const page = (await who.api.graphql(LISTED, { id, limit: 1, offset: 1 })).body.data.webhookDeliveries;
      expect(page).toMatchObject({ total: 3, hasMore: true, items: [{ id: sent[1], status: "delivered", responseStatus: 204 }] });
      expect((await who.api.graphql(LISTED, { id, status: "pending" })).body.data.webhookDeliveries).toMatchObject({ total: 0, items: [] });
      const rest = await who.api.get(`/api/v1/webhooks/${id}/deliveries?limit=2`);
      expect(rest.body.deliveries.map((d: { id: string }) => d.id)).toEqual([sent[2], sent[1]]);
    });

    it("records a delivery attempted by several rounds (its claim lapsed) once, a success first: the statement that takes its event out", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      const { id: webhookId } = await register(who, hook.url, ["memory.created"]);
      const { sql } = suite.server.app.db;
      // an event as the triggers write it, claimed far ahead so that the running relay leaves it to this test
      const [event] = await sql.query<{ seq: string; id: string }>(
        `INSERT INTO events (user_id, type, object_id, claimed_until) VALUES ($1::uuid, 'memory.created', gen_random_uuid(), now() + interval '1 hour')
         RETURNING seq::text, id`,
        [who.userId],
      );
      // its id as the relay makes it, from the event's and the endpoint's
      const [{ id }] = (await sql.query<{ id: string }>("SELECT md5($1::text || $2::text)::uuid AS id", [event!.id, webhookId])) as [{ id: string }];
      const attempt = {
        id,
        webhook_id: webhookId,
        url: hook.url,
        secret: "",
        previous_secret: null,
        attempts: 1,
        payload: "{}",
        event_id: event!.id,
        after: [],
      };
      const record = (...outcomes: Omit<FirstOutcome, "attempt">[]) => {
        const { ctes, parameters } = firstAttemptsRecorded({ seqs: outcomes.map(() => event!.seq), outcomes: outcomes.map((outcome) => ({ attempt, ...outcome })) }, 1);
        return sql.query(`WITH ${ctes} SELECT 1`, parameters);
      };
      const failed = { attempted: true, status: "pending", responseStatus: 503, error: "answered 503", retryMs: 60_000, at: Date.now() } as const;
      const delivered = { attempted: true, status: "delivered", responseStatus: 204, error: null, retryMs: 0, at: Date.now() } as const;
      // three rounds' outcomes recorded in one statement (each attempted before any was recorded), then a fourth's
      await record(failed, delivered, delivered);
      await record(failed);
      const { items } = (await who.api.graphql(LISTED, { id: webhookId })).body.data.webhookDeliveries;
      expect(items).toMatchObject([{ id: attempt.id, status: "delivered", responseStatus: 204 }]);
      expect(await deliveryRows(who), "no row to retry it from").toEqual([]);
    });

    it("sends only the event types asked for", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      const { secret } = await register(who, hook.url, ["memory.deleted"]);
      const { id } = (await who.api.post("/api/v1/memory", { content: "short-lived" })).body;
      await who.api.delete(`/api/v1/memories/${id}`);
      await hook.waitForAccepted(1);
      expect(hook.accepted.map((d) => WebhookReceiver.verify(secret, d).type)).toEqual(["memory.deleted"]);
    });

    it("retries with backoff: a receiver failing the first 2 attempts gets the event on the third, same webhook-id", async () => {
      const who = await suite.server.newUser();
      const hook = await receiver();
      hook.behaviour = (attempt) => (attempt <= 2 ? 503 : 200);
      const { id, secret } = await register(who, hook.url, ["memory.created"]);
      await who.api.post("/api/v1/memory", { content: "eventually" });
      await hook.waitForAccepted(1);
      expect(hook.attempts).toHaveLength(3);
      expect(new Set(hook.attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
      expect(WebhookReceiver.verify(secret, hook.accepted[0]!).type).toBe("memory.created");
      await until(async () => (await who.api.graphql(DELIVERIES, { id })).body.data.webhookDeliveries.items[0].status === "delivered");
      const { items } = (await who.api.graphql(DELIVERIES, { id })).body.data.webhookDeliveries;
      expect(items).toEqual([{ status: "delivered", attempts: 3, responseStatus: 200, lastError: null, eventType: "MEMORY_CREATED" }]);
    });
  });
});

describe.skipIf(databaseUnavailable())("webhooks: giving up", () => {
  const suite = serverWithUser({
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_BASE_MS: "50",
    WEBHOOK_MAX_ATTEMPTS: "3",
    WEBHOOK_DISABLE_AFTER_SECONDS: "2",
    WEBHOOK_SECRET_OVERLAP_HOURS: "0",
  });

  it("marks a delivery failed once its attempts run out, and disables an endpoint failing for too long", async () => {
    const hook = await receiver();
    hook.behaviour = () => 500;
    const { id } = await register(suite.user, hook.url, ["memory.created"]);
    await suite.user.api.post("/api/v1/memory", { content: "never accepted" });
    await until(async () => (await suite.user.api.graphql(DELIVERIES, { id })).body.data.webhookDeliveries.items[0]?.status === "failed");
    const [first] = (await suite.user.api.graphql(DELIVERIES, { id })).body.data.webhookDeliveries.items;
    expect(first).toMatchObject({ attempts: 3, responseStatus: 500, lastError: "answered 500" });
    const [{ payload }] = (await suite.server.app.db.sql.query<{ payload: string | null }>(
      "SELECT payload FROM webhook_deliveries WHERE webhook_id = $1::uuid",
      [id],
    )) as [{ payload: string | null }];
    expect(payload, "a delivery given up keeps no body").toBeNull();
    // still failing two seconds on: the next delivery's failures disable it
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await suite.user.api.post("/api/v1/memory", { content: "the last straw" });
    await until(async () => !(await suite.user.api.get("/api/v1/webhooks")).body.webhooks[0].enabled);
    const [webhook] = (await suite.user.api.get("/api/v1/webhooks")).body.webhooks;
    expect(webhook.disabled_reason).toMatch(/^every attempt since .* failed \(the last: answered 500\)$/);
    // not at the straw's first failure: once its retries have had their chance too
    const [straw] = (await suite.user.api.graphql(DELIVERIES, { id })).body.data.webhookDeliveries.items;
    expect(straw).toMatchObject({ status: "failed", attempts: 3, lastError: "answered 500" });
    // enabled again, it is sent the next event, and its streak starts afresh
    hook.behaviour = () => 200;
    expect((await suite.user.api.post(`/api/v1/webhooks/${id}/enable`, {})).body).toMatchObject({ enabled: true, failing_since: null });
    await suite.user.api.post("/api/v1/memory", { content: "welcome back" });
    await hook.waitForAccepted(1);
    expect(JSON.parse(hook.accepted[0]!.body).data.content).toBe("welcome back");
  });

  it("with no overlap (WEBHOOK_SECRET_OVERLAP_HOURS=0), a rotation stops the old secret at once", async () => {
    const who = await suite.server.newUser();
    const hook = await receiver();
    const { id, secret: old } = await register(who, hook.url, ["memory.created"]);
    const rotated = await who.api.post(`/api/v1/webhooks/${id}/rotate-secret`, {});
    expect(rotated.body.previous_secret_until).toBeNull();
    await who.api.post("/api/v1/memory", { content: "new secret only" });
    await hook.waitForAccepted(1);
    expect(hook.accepted[0]!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(WebhookReceiver.verify(rotated.body.secret, hook.accepted[0]!).type).toBe("memory.created");
    expect(() => WebhookReceiver.verify(old, hook.accepted[0]!)).toThrow();
  });
});

describe.skipIf(databaseUnavailable())("webhooks: a graceful stop", () => {
  const suite = serverWithUser({ WEBHOOK_ALLOW_PRIVATE: "true" });

  it("records a first attempt that succeeded after the relay stopped, so that a restart does not send it again", async () => {
    const { relay, deliveries } = suite.server.app.services;
    const hook = await receiver();
    // the relay records first attempts' successes in its next statement: stopped as the attempt is answered,
    // it makes none, and the worker records the success itself as it stops
    hook.behaviour = () => {
      void relay.stop();
      return 204;
    };
    const { id } = await register(suite.user, hook.url, ["memory.created"]);
    expect((await suite.user.api.post("/api/v1/memory", { content: "sent as the server stops" })).status).toBe(201);
    await hook.waitForAccepted(1);
    await deliveries.stop();
    const { items } = (await suite.user.api.graphql(DELIVERIES, { id })).body.data.webhookDeliveries;
    expect(items).toEqual([{ status: "delivered", attempts: 1, responseStatus: 204, lastError: null, eventType: "MEMORY_CREATED" }]);
  });
});

// a round's outcomes are recorded once its slowest attempt has ended: an endpoint's failing streak was dated then,
// by another endpoint's timeout, rather than by its own failed answer (outside probe)
describe.skipIf(databaseUnavailable())("webhooks: a slow endpoint beside a failing one", () => {
  const suite = serverWithUser({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "2000", WEBHOOK_RETRY_BASE_MS: "600000" });

  it("dates the failing endpoint's streak by its own answer, not by the slow one's timeout", async () => {
    const failing = await receiver();
    failing.behaviour = () => 500;
    const slow = await receiver();
    slow.behaviour = () => "hang";
    const { id } = await register(suite.user, failing.url, ["memory.created"]);
    await register(suite.user, slow.url, ["memory.created"]);
    await suite.user.api.post("/api/v1/memory", { content: "sent to both" });
    await until(async () => failing.attempts.length === 1);
    const answered = Date.now();
    const failingSince = async () =>
      ((await suite.user.api.get("/api/v1/webhooks")).body.webhooks as { id: string; failing_since: string | null }[]).find((hook) => hook.id === id)!.failing_since;
    await until(async () => (await failingSince()) !== null);
    // recorded after the slow endpoint's 2 s timeout, dated by the failing one's answer
    expect(Date.now() - answered).toBeGreaterThan(1_000);
    expect(Math.abs(new Date((await failingSince())!).getTime() - answered)).toBeLessThan(500);
  });
});

describe.skipIf(databaseUnavailable())("webhooks: the sender's thread dying mid-batch", () => {
  const suite = serverWithUser({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "1000" });

  it("loses nothing: the delivery is made again once its claim lapses, under the same webhook-id, and recorded once", async () => {
    const { deliveries, events } = suite.server.app.services;
    const hook = await receiver();
    hook.behaviour = () => "hang"; // the first attempt is under way when the thread dies
    const { id, secret } = await register(suite.user, hook.url, ["memory.created"]);
    const heard: string[] = [];
    const feed = events.subscribe(suite.user.userId)[Symbol.asyncIterator]();
    const listening = (async () => {
      for (let next = await feed.next(); !next.done; next = await feed.next()) heard.push(`${next.value.type} ${next.value.objectId}`);
    })();
    const memory = await suite.user.api.post("/api/v1/memory", { content: "sent as the sender's thread dies" });
    expect(memory.status).toBe(201);
    await until(async () => hook.attempts.length === 1);
    await deliveries.sender.close();
    hook.behaviour = () => 200;
    await hook.waitForAccepted(1, 20_000);
    expect(WebhookReceiver.verify(secret, hook.accepted[0]!)).toMatchObject({ type: "memory.created", data: { id: memory.body.id } });
    expect(hook.accepted[0]!.headers["webhook-id"]).toBe(hook.attempts[0]!.headers["webhook-id"]);
    await until(async () => {
      const { items } = (await suite.user.api.graphql(LISTED, { id })).body.data.webhookDeliveries;
      return items.length === 1 && items[0].status === "delivered" && items[0].id === hook.accepted[0]!.headers["webhook-id"];
    });
    expect(hook.attempts).toHaveLength(2);
    await feed.return?.();
    await listening;
    expect(heard, "published once, though taken twice").toEqual([`memory.created ${memory.body.id}`]);
  }, 30_000);
});

describe.skipIf(databaseUnavailable())("webhooks: a burst for a slow endpoint", () => {
  const suite = serverWithUser({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "1000" });

  it("delivers each of 100 events on its first attempt: waiting for a connection is not timed, nor counted", async () => {
    const hook = await receiver();
    hook.answerAfterMs = 400; // 16 connections: 4 turns fit in the first round's second, 7 are needed
    const { id } = await register(suite.user, hook.url, ["memory.created"]);
    const batch = await suite.user.api.post("/api/v1/memory/batch", Array.from({ length: 100 }, (_, i) => ({ content: `burst ${i}` })));
    expect(batch.body.summary, batch.text).toMatchObject({ successful: 100 });
    await hook.waitForAccepted(100, 20_000);
    let items: { id: string; status: string; attempts: number; lastError: string | null }[] = [];
    await until(async () => {
      ({ items } = (await suite.user.api.graphql(LISTED_ALL, { id })).body.data.webhookDeliveries);
      return items.length === 100 && items.every((item) => item.status === "delivered");
    });
    expect(items.every((item) => item.attempts === 1 && item.lastError === null)).toBe(true);
    expect(hook.attempts, "each sent once").toHaveLength(100);
  }, 30_000);
});

describe.skipIf(databaseUnavailable())("webhooks: a slow endpoint beside a fast one", () => {
  const suite = serverWithUser({ WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "1500" });

  it("dates each delivery by its own answer, not by the slower endpoint's of the same round", async () => {
    const [fast, slow] = [await receiver(), await receiver()];
    slow.behaviour = () => "hang"; // answered only by the timeout, 1.5 s after the round's attempts began
    const { id } = await register(suite.user, fast.url, ["memory.created"]);
    await register(suite.user, slow.url, ["memory.created"]);
    expect((await suite.user.api.post("/api/v1/memory", { content: "timed" })).status).toBe(201);
    await fast.waitForAccepted(1);
    const answered = Date.now();
    let deliveredAt = Number.NaN;
    await until(async () => {
      const [item] = (await suite.user.api.graphql(LISTED, { id })).body.data.webhookDeliveries.items;
      deliveredAt = item?.deliveredAt ? Date.parse(item.deliveredAt) : Number.NaN;
      return !Number.isNaN(deliveredAt);
    });
    expect(Math.abs(deliveredAt - answered)).toBeLessThan(500);
  });
});

describe.skipIf(databaseUnavailable())("webhooks: kill -9 between commit and delivery", () => {
  const database = suiteDatabase();
  let server: ServerProcess | undefined;
  let hook: WebhookReceiver | undefined;
  beforeAll(async () => {
    hook = await WebhookReceiver.start();
  });
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await server?.exited;
    await hook?.close();
  });

  it("delivers the event after the restart, under the same webhook-id", async () => {
    // the first attempt's claim lasts the timeout and 5 s: on PostgreSQL (other instances may be making it) the
    // restarted server waits for it to lapse; on the embedded database, which no other process can hold, it does not
    const embedded = databaseUnderTest() === "pglite";
    const timeoutMs = embedded ? 30_000 : 2_000;
    const env = { ...database.env, EMBEDDER: "hash", LOG_LEVEL: "warn", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: String(timeoutMs) };
    const created = await runCli("keys", ["create", "--user", "webhooks@x", "--name", "t", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    const api = new HttpClient("", (JSON.parse(created.stdout) as { key: string }).key);
    const receiving = hook!;
    receiving.behaviour = () => "hang"; // the first attempt is under way when the server dies

    server = await serverProcess(env);
    const at = (url: string) => new HttpClient(url, api.key);
    const registered = await at(server.url).post("/api/v1/webhooks", { url: receiving.url, events: ["memory.created"] });
    expect(registered.status).toBe(201);
    const memory = await at(server.url).post("/api/v1/memory", { content: "committed, not yet delivered" });
    expect(memory.status).toBe(201);
    await until(async () => receiving.attempts.length === 1);
    server.child.kill("SIGKILL");
    await server.exited;

    receiving.behaviour = () => 200;
    server = await serverProcess(env);
    await receiving.waitForAccepted(1, embedded ? 10_000 : 30_000);
    const body = WebhookReceiver.verify(registered.body.secret, receiving.accepted[0]!);
    expect(body).toMatchObject({ type: "memory.created", data: { id: memory.body.id } });
    expect(receiving.accepted[0]!.headers["webhook-id"]).toBe(receiving.attempts[0]!.headers["webhook-id"]);
  }, 60_000);
});

describe.skipIf(databaseUnavailable() || databaseUnderTest() !== "postgres")("webhooks: two instances on one PostgreSQL", () => {
  const servers: TestServer[] = [];
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const db = await freshPostgresDatabase();
    drop = db.drop;
    const env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: "true" as const };
    servers.push(await startTestServer(env), await startTestServer(env));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await drop?.();
  });

  it("sends each delivery from one of them only", async () => {
    const user = await servers[0]!.newUser();
    const hook = await receiver();
    const { secret } = await register(user, hook.url, ["memory.created"]);
    const writes = Array.from({ length: 60 }, (_, i) =>
      servers[i % 2]!.client(user.key).post("/api/v1/memory", { content: `write ${i}` }),
    );
    expect((await Promise.all(writes)).every((res) => res.status === 201)).toBe(true);
    await hook.waitForAccepted(60);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // both instances poll once more
    expect(hook.attempts).toHaveLength(60);
    expect(new Set(hook.accepted.map((d) => WebhookReceiver.verify(secret, d).data.id)).size).toBe(60);
  });

  // the other instance's relay took the later events of an object at its next round, skipping those claimed, and sent
  // them at once: thread.deleted came before thread.created, every write made through one instance (outside probe)
  it("leaves a user's later events to the instance making attempts for earlier ones: an object's come in order", async () => {
    const [writer, other] = servers as [TestServer, TestServer];
    const user = await writer.newUser();
    const hook = await receiver();
    hook.answerAfterMs = 2500; // the first attempt holds its claim while the memory changes again
    const { secret } = await register(user, hook.url, ["memory.created", "memory.updated"]);
    const { id } = (await user.api.post("/api/v1/memory", { content: "first" })).body as { id: string };
    await until(async () => hook.attempts.length === 1);
    // the writer's relay held back, as when a round of the other instance comes first (its gather, its poll)
    const relay = writer.app.services.relay as unknown as { work(): Promise<number>; wake(): void };
    relay.work = async () => 0;
    expect((await user.api.patch(`/api/v1/memories/${id}`, { content: "second" })).status).toBe(200);
    const bystander = await other.newUser();
    expect((await bystander.api.post("/api/v1/memory", { content: "elsewhere" })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the other instance polls meanwhile
    expect(hook.attempts, "the update not sent while the create's attempt is under way").toHaveLength(1);
    delete (relay as Partial<typeof relay>).work;
    relay.wake();
    await hook.waitForAccepted(2);
    expect(hook.accepted.map((delivery) => WebhookReceiver.verify(secret, delivery).type)).toEqual(["memory.created", "memory.updated"]);
  });
});
