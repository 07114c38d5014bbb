import { GraphQLError } from "graphql";
import { createSchema, createYoga, Repeater } from "graphql-yoga";
import { describe, expect, it, vi } from "vitest";
import type { Context } from "../../src/graphql/context.ts";
import { useSharedSubscriptions } from "../../src/graphql/use-shared-subscriptions.ts";

/** A Yoga with the plugin, on a schema that counts its subscriptions and its executions of each tick. */
function server() {
  const ticks = new EventTarget();
  const counts = { subscribed: 0, ended: 0, resolved: 0 };
  const yoga = createYoga<Context>({
    logging: false,
    schema: createSchema({
      typeDefs: /* GraphQL */ `
        type Query { ok: Boolean }
        type Tick { n: Int! }
        type Subscription { ticks(refuse: Boolean): Tick! }
      `,
      resolvers: {
        Tick: {
          n: (tick: { n: number }) => {
            counts.resolved++;
            return tick.n;
          },
        },
        Subscription: {
          ticks: {
            subscribe: (_root: unknown, { refuse }: { refuse?: boolean }) => {
              if (refuse) throw new GraphQLError("refused");
              counts.subscribed++;
              return new Repeater<{ n: number }>((push, stop) => {
                const listener = (event: Event) => void push((event as CustomEvent<{ n: number }>).detail);
                ticks.addEventListener("tick", listener);
                void stop.then(() => {
                  ticks.removeEventListener("tick", listener);
                  counts.ended++;
                });
              });
            },
            resolve: (tick: { n: number }) => tick,
          },
        },
      },
    }),
    plugins: [useSharedSubscriptions()],
  });
  const tick = (n: number) => ticks.dispatchEvent(new CustomEvent("tick", { detail: { n } }));
  return { yoga, counts, tick };
}

interface Subscriber {
  /** The `next` payloads received so far. */
  received: unknown[];
  /** How many chunks of the stream they came in. */
  chunks(): number;
  /** Resolves once `count` payloads have come. */
  until(count: number): Promise<void>;
  close(): Promise<void>;
}

async function subscribe(yoga: ReturnType<typeof server>["yoga"], keyId: string, query = "subscription { ticks { n } }"): Promise<Subscriber> {
  const context = { principal: { userId: "user", keyId } } as Context;
  const response = await yoga.fetch(
    "http://localhost/graphql",
    { method: "POST", headers: { accept: "text/event-stream", "content-type": "application/json" }, body: JSON.stringify({ query }) },
    context,
  );
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const received: unknown[] = [];
  let text = "";
  let chunks = 0;
  const read = async (count: number) => {
    while (received.length < count) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended after ${received.length} payloads`);
      chunks++;
      text += value;
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
        const data = text.slice(0, end).split("\n").find((line) => line.startsWith("data: "));
        if (data && text.startsWith("event: next")) received.push(JSON.parse(data.slice(6)));
        text = text.slice(end + 2);
      }
    }
  };
  // the stream's opening ping: the subscription is listening
  text = (await reader.read()).value ?? "";
  return { received, chunks: () => chunks, until: read, close: () => reader.cancel() };
}

describe("shared subscriptions", () => {
  it("executes an event once for every subscriber asking the same with one key, and each receives it", async () => {
    const { yoga, counts, tick } = server();
    const [a, b] = [await subscribe(yoga, "key-1"), await subscribe(yoga, "key-1")];
    tick(1);
    tick(2);
    await Promise.all([a.until(2), b.until(2)]);
    expect(a.received).toEqual([{ data: { ticks: { n: 1 } } }, { data: { ticks: { n: 2 } } }]);
    expect(b.received).toEqual(a.received);
    expect(counts).toEqual({ subscribed: 1, ended: 0, resolved: 2 });
    await Promise.all([a.close(), b.close()]);
  });

  it("serializes each event's result once for all the subscribers sharing its execution", async () => {
    const { yoga, tick } = server();
    const subscribers = [await subscribe(yoga, "key-1"), await subscribe(yoga, "key-1"), await subscribe(yoga, "key-1")];
    const stringify = vi.spyOn(JSON, "stringify");
    tick(7);
    await Promise.all(subscribers.map((s) => s.until(1)));
    const calls = [...stringify.mock.calls];
    stringify.mockRestore();
    const ofTheTick = calls.filter(([value]) => JSON.stringify(value) === '{"data":{"ticks":{"n":7}}}');
    expect(ofTheTick).toHaveLength(1);
    for (const s of subscribers) expect(s.received).toEqual([{ data: { ticks: { n: 7 } } }]);
    await Promise.all(subscribers.map((s) => s.close()));
  });

  it("writes the events dispatched together in one chunk, each an event of its own, in order", async () => {
    const { yoga, tick } = server();
    const [a, b] = [await subscribe(yoga, "key-1"), await subscribe(yoga, "key-1")];
    for (let n = 1; n <= 50; n++) tick(n);
    await Promise.all([a.until(50), b.until(50)]);
    const expected = Array.from({ length: 50 }, (_, i) => ({ data: { ticks: { n: i + 1 } } }));
    expect(a.received).toEqual(expected);
    expect(b.received).toEqual(expected);
    // one result (Yoga enqueues its event line and its data apart), where each event was written alone before
    expect(a.chunks()).toBeLessThanOrEqual(2);
    tick(51);
    await a.until(51);
    expect(a.received[50]).toEqual({ data: { ticks: { n: 51 } } });
    await Promise.all([a.close(), b.close()]);
  });

  it("does not share between keys, nor between different selections", async () => {
    const { yoga, counts, tick } = server();
    const subscribers = [
      await subscribe(yoga, "key-1"),
      await subscribe(yoga, "key-2"),
      await subscribe(yoga, "key-1", "subscription { ticks { n __typename } }"),
    ];
    tick(1);
    await Promise.all(subscribers.map((s) => s.until(1)));
    expect(counts).toEqual({ subscribed: 3, ended: 0, resolved: 3 });
    await Promise.all(subscribers.map((s) => s.close()));
  });

  it("goes on for the others when one leaves, and starts again after the last has left", async () => {
    const { yoga, counts, tick } = server();
    const [a, b] = [await subscribe(yoga, "key-1"), await subscribe(yoga, "key-1")];
    await a.close();
    tick(1);
    await b.until(1);
    await b.close();
    await vi.waitFor(() => expect(counts.ended).toBe(1));
    const c = await subscribe(yoga, "key-1");
    tick(2);
    await c.until(1);
    expect(c.received).toEqual([{ data: { ticks: { n: 2 } } }]);
    expect(counts.subscribed).toBe(2);
    await c.close();
  });

  it("ends the stream of a subscriber that falls more than 1 024 events behind, and goes on for the others", async () => {
    const { yoga, tick } = server();
    const [slow, reading] = [await subscribe(yoga, "key-1"), await subscribe(yoga, "key-1")];
    // the slow one's stream (Yoga's, and the decoder this test pipes it through) takes a few chunks of up to 128
    // events before it stops reading
    for (let n = 1; n <= 2000; n++) {
      tick(n);
      if (n % 100 === 0) await reading.until(n);
    }
    await expect(slow.until(2000)).rejects.toThrow(/the stream ended after \d+ payloads/);
    expect(slow.received.length).toBeGreaterThanOrEqual(1024);
    expect(slow.received.length).toBeLessThan(2000);
    tick(2001);
    await reading.until(2001);
    await reading.close();
  });

  it("answers a refused subscription's error to each subscriber", async () => {
    const { yoga, counts } = server();
    const query = "subscription { ticks(refuse: true) { n } }";
    const [a, b] = await Promise.all([subscribe(yoga, "key-1", query), subscribe(yoga, "key-1", query)]);
    await Promise.all([a.until(1), b.until(1)]);
    for (const subscriber of [a, b]) expect(subscriber.received).toEqual([{ errors: [expect.objectContaining({ message: "refused" })] }]);
    expect(counts.subscribed).toBe(0);
  });
});
