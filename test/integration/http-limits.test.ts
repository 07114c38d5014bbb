import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { databaseUnderTest, suiteServer } from "../support/server.ts";

/** A raw connection to the server, with what it received and when it was closed. */
async function open(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const started = performance.now();
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
  socket.on("error", () => {}); // a reset counts as closed
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve((performance.now() - started) / 1000)));
  return { socket, received: () => text, closed };
}

/** Sends the start of a request and expects the server to close the connection after `min` to `max` seconds. */
async function closedAfter(url: string, start: string, min: number, max: number) {
  const slow = await open(url);
  slow.socket.write(start);
  const seconds = await slow.closed;
  expect(seconds).toBeGreaterThanOrEqual(min);
  expect(seconds).toBeLessThan(max);
  return slow;
}

// the HTTP layer's own limits: the same on either database, so run once
describe.runIf(databaseUnderTest() === "pglite")("HTTP timeouts and connection cap", () => {
  const suite = suiteServer({ HTTP_HEADERS_TIMEOUT_SECONDS: "1", HTTP_REQUEST_TIMEOUT_SECONDS: "2", HTTP_MAX_CONNECTIONS: "4" });

  it("answers 408 and closes a connection whose headers do not arrive in time", async () => {
    const slow = await closedAfter(suite.server.url, "GET /healthz HTTP/1.1\r\nHost: x\r\n", 0.9, 4);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(JSON.parse(slow.received().split("\r\n\r\n")[1]!)).toMatchObject({ error: { code: "REQUEST_TIMEOUT" } });
  });

  it("answers a request line and headers over Node's limit (a long query string) with the error body every error has", async () => {
    const res = await fetch(`${suite.server.url}/api/v1/memory/search?query=${"a".repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(await res.json()).toMatchObject({ error: { code: "HEADERS_TOO_LARGE", message: expect.stringContaining("POST") } });
    const garbled = await open(suite.server.url);
    garbled.socket.write("NOT HTTP\r\n\r\n");
    await garbled.closed;
    expect(garbled.received()).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(garbled.received().split("\r\n\r\n")[1]!)).toMatchObject({ error: { code: "MALFORMED_REQUEST" } });
  });

  it("closes a request whose body does not arrive in time", async () => {
    const { key } = await suite.server.newUser();
    const body = `POST /api/v1/memory HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;
    const slow = await closedAfter(suite.server.url, body, 1.9, 5);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  // it waited for the rest of the body until the request timeout, then answered that a 408 as well
  it("answers a request refused before its body has come once, and closes the connection at once", async () => {
    const body = "POST /api/v1/memory HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
    const refused = await closedAfter(suite.server.url, body, 0, 1);
    expect(refused.received()).toMatch(/^HTTP\/1\.1 401/);
    expect(refused.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it("refuses connections beyond HTTP_MAX_CONNECTIONS and serves again once they close", async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => open(suite.server.url)));
    const extra = await open(suite.server.url);
    extra.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await extra.closed).toBeLessThan(1);
    expect(extra.received()).toBe("");
    held.forEach((c) => c.socket.destroy());
    await Promise.all(held.map((c) => c.closed));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server hears the closes after the client does
    expect((await suite.server.client().get("/healthz")).status).toBe(200);
  });
});
