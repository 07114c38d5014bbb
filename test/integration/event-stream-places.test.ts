import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { createSchema, createYoga } from "graphql-yoga";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventStreams } from "../../src/transport/event-stream.ts";
import { databaseUnderTest } from "../support/server.ts";

// a subscription's answer as Yoga makes it, with its Fetch API (whose stream, unlike Node's own, leaves a pending
// read waiting when cancelled): a first chunk, then a next event that never comes. Outside tests the read would
// settle at Yoga's next keep-alive, 12 s later: the place must be freed when the client leaves, not then
const { fetchAPI } = createYoga({ schema: createSchema({ typeDefs: "type Query { a: Int }" }) });
const silentStream = () =>
  new fetchAPI.Response(
    new fetchAPI.ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode(": hi\n\n")), pull: () => new Promise(() => {}) }),
    { headers: { "content-type": "text/event-stream" } },
  );

describe.skipIf(databaseUnderTest() !== "pglite")("event streams' places per user", () => {
  const streams = new EventStreams(1);
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      streams.send(res, silentStream(), "alice").catch((error: Error) => res.writeHead(429).end(error.message));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    streams.endAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("frees a user's place as soon as the client closes its stream, though no event came", async () => {
    const first = new AbortController();
    expect((await fetch(url, { signal: first.signal })).status).toBe(200);
    expect((await fetch(url)).status, "the one place is taken").toBe(429);
    first.abort();
    let again = await fetch(url);
    for (let tries = 0; again.status === 429 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await fetch(url);
    }
    expect(again.status, "the place is free again").toBe(200);
    await again.body?.cancel();
  });
});

// a stream of events as fast as they come, 64 KB each: more than a socket holds for a client that reads nothing
const floodingStream = () =>
  new fetchAPI.Response(
    new fetchAPI.ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new TextEncoder().encode(`data: ${"x".repeat(65_536)}\n\n`)) }),
    { headers: { "content-type": "text/event-stream" } },
  );

describe.skipIf(databaseUnderTest() !== "pglite")("an event stream whose client stops reading", () => {
  // such a client kept its socket, its place and its queued events for as long as it stayed connected (helper-23)
  it("is closed once the socket has held its data for stallMs, and the user's place is free again", async () => {
    const streams = new EventStreams(1, 300);
    const server = createServer((req, res) => {
      streams.send(res, floodingStream(), "bob").catch((error: Error) => res.writeHead(429).end(error.message));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const stalled = connect(port, "127.0.0.1");
      stalled.write(`GET / HTTP/1.1\r\nHost: x\r\n\r\n`);
      stalled.pause(); // reads nothing: the server's writes fill the socket, then wait
      stalled.on("error", () => {});
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fetch(`http://127.0.0.1:${port}/`)).status, "the one place is taken").toBe(429);
      let again = await fetch(`http://127.0.0.1:${port}/`);
      while (again.status === 429 && performance.now() - started < 10_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await fetch(`http://127.0.0.1:${port}/`);
      }
      expect(again.status, "the place is free again").toBe(200);
      expect(performance.now() - started).toBeLessThan(5_000);
      await again.body?.cancel();
      stalled.destroy();
    } finally {
      streams.endAll();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
