import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebhookReceiver } from "../../scripts/lib/webhook-receiver.ts";
import { SenderThread, type Sendable, type SenderSettings } from "../../src/webhooks/sender.ts";

const secret = () => `whsec_${randomBytes(24).toString("base64")}`;
const delivery = (url: string, body: object = { type: "memory.created", data: { id: randomUUID() } }): Sendable => ({
  id: randomUUID(),
  url,
  payload: JSON.stringify(body),
  secret: secret(),
  previous_secret: null,
});

const until = async (done: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("the webhook sender's thread", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0)) await close();
  });
  const started = async (settings: Partial<SenderSettings> = {}) => {
    const sender = new SenderThread({ timeoutMs: 5_000, allowPrivate: true, ...settings });
    const receiver = await WebhookReceiver.start();
    cleanup.push(() => sender.close(), () => receiver.close());
    // the outcomes without their times, each time checked to fall while the batch was under way
    const send = async (deliveries: Sendable[]) => {
      const from = Date.now();
      const outcomes = await sender.send(deliveries);
      const to = Date.now();
      for (const { at } of outcomes) expect(at >= from && at <= to, `${at} within ${from}..${to}`).toBe(true);
      return outcomes.map(({ at: _, ...outcome }) => outcome);
    };
    return { sender, receiver, send };
  };

  it("signs and sends a batch, answering each delivery's outcome in order", async () => {
    const { receiver, send } = await started();
    receiver.behaviour = () => 204;
    const [first, second] = [delivery(receiver.url), delivery(receiver.url)];
    const refused = delivery("http://127.0.0.1:9/closed");
    expect(await send([first!, refused, second!])).toEqual([
      { ok: true, status: 204 },
      expect.objectContaining({ ok: false, status: null }),
      { ok: true, status: 204 },
    ]);
    for (const sent of [first!, second!]) {
      const received = receiver.accepted.find((d) => d.headers["webhook-id"] === sent.id)!;
      expect(WebhookReceiver.verify(sent.secret, received)).toEqual(JSON.parse(sent.payload));
    }
  });

  it("signs with the previous secret as well while it is given", async () => {
    const { receiver, send } = await started();
    const sent = { ...delivery(receiver.url), previous_secret: secret() };
    expect(await send([sent])).toEqual([{ ok: true, status: 204 }]);
    expect(WebhookReceiver.verify(sent.previous_secret, receiver.accepted[0]!)).toEqual(JSON.parse(sent.payload));
  });

  it("refuses loopback, as an address and as a name that resolves to it, unless private addresses are allowed", async () => {
    const { receiver, send } = await started({ allowPrivate: false });
    const named = receiver.url.replace("127.0.0.1", "localhost");
    const outcomes = await send([delivery(receiver.url), delivery(named)]);
    expect(outcomes).toEqual([
      { ok: false, status: null, error: "127.0.0.1 is not a public address" },
      { ok: false, status: null, error: "localhost resolves to a non-public address" },
    ]);
    expect(receiver.attempts).toHaveLength(0);
  });

  it("gives up on a receiver that does not answer within the timeout", async () => {
    const { receiver, send } = await started({ timeoutMs: 300 });
    receiver.behaviour = () => "hang";
    const [outcome] = await send([delivery(receiver.url)]);
    // the setting named (it said the runtime's "The operation was aborted due to timeout")
    expect(outcome).toEqual({ ok: false, status: null, error: "no answer within 300 ms (WEBHOOK_TIMEOUT_MS)" });
  });

  it("says the status of an answer whose body did not end within the timeout", async () => {
    const { send } = await started({ timeoutMs: 300 });
    const trickling = createServer((_, res) => {
      res.writeHead(200);
      res.write("still coming");
    });
    await new Promise<void>((resolve) => trickling.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => void (trickling.closeAllConnections(), trickling.close()));
    const [outcome] = await send([delivery(`http://127.0.0.1:${(trickling.address() as AddressInfo).port}/hook`)]);
    expect(outcome).toEqual({ ok: false, status: 200, error: "answered 200, but its body did not end within 300 ms (WEBHOOK_TIMEOUT_MS)" });
  });

  it("times each attempt from its turn at the endpoint's 16 connections, and hands back unsent what cannot begin in time", async () => {
    const { receiver, send } = await started({ timeoutMs: 1_000 });
    receiver.answerAfterMs = 400;
    const batch = Array.from({ length: 64 }, () => delivery(receiver.url));
    const begun = performance.now();
    const outcomes = await send(batch);
    // turns begin at about 0, 400 and 800 ms: the third's attempts end past the batch's first second, each within
    // its own; the fourth's would begin at 1 200, after the second the batch gives its deliveries to begin
    expect(outcomes.slice(0, 48)).toEqual(Array.from({ length: 48 }, () => ({ ok: true, status: 204 })));
    expect(outcomes.slice(48)).toEqual(Array.from({ length: 16 }, () => ({ ok: false, unsent: true })));
    expect(performance.now() - begun).toBeGreaterThan(1_150);
    expect(receiver.attempts.map((d) => d.headers["webhook-id"])).toEqual(batch.slice(0, 48).map(({ id }) => id));
  });

  it("reads no more than 64 KB of an answer, and sends the next delivery over a new connection", async () => {
    // a receiver that answers 200 with a body that never ends
    const endless = createServer((req, res) => {
      req.resume();
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 120);
      const more = () => {
        while (res.write(chunk));
      };
      res.on("drain", more);
      more();
    });
    await new Promise<void>((resolve) => endless.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    });
    const { send } = await started({ timeoutMs: 5_000 });
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hook`;
    const begun = performance.now();
    expect(await send([delivery(url)])).toEqual([{ ok: true, status: 200 }]);
    expect(await send([delivery(url)])).toEqual([{ ok: true, status: 200 }]);
    // well within the timeout: the answers were cut short, not read until it
    expect(performance.now() - begun).toBeLessThan(2_500);
  });

  it("fails the batches of a thread that dies mid-batch, and sends the next batch from a new one", async () => {
    const { sender, receiver, send } = await started();
    receiver.behaviour = () => "hang";
    const sending = sender.send([delivery(receiver.url), delivery(receiver.url)]);
    await until(() => receiver.attempts.length === 2);
    await sender.close();
    await expect(sending).rejects.toThrow(/sender thread stopped/);
    receiver.behaviour = () => 200;
    const again = delivery(receiver.url);
    expect(await send([again])).toEqual([{ ok: true, status: 200 }]);
    expect(receiver.accepted.map((d) => d.headers["webhook-id"])).toEqual([again.id]);
  });
});
