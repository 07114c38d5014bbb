import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUnderTest, startTestServer, type TestServer } from "../support/server.ts";

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

// the HTTP layer's own limits: the same on either database, so run once
describe.runIf(databaseUnderTest() === "pglite")("HTTP timeouts and connection cap", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ HTTP_HEADERS_TIMEOUT_SECONDS: "1", HTTP_REQUEST_TIMEOUT_SECONDS: "2", HTTP_MAX_CONNECTIONS: "4" });
  });
  afterAll(() => server?.close());

  it("answers 408 and closes a connection whose headers do not arrive in time", async () => {
    const slow = await open(server.url);
    slow.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const seconds = await slow.closed;
    expect(seconds).toBeGreaterThanOrEqual(0.9);
    expect(seconds).toBeLessThan(4);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a request whose body does not arrive in time", async () => {
    const slow = await open(server.url);
    slow.socket.write("POST /api/v1/memory HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
    const seconds = await slow.closed;
    expect(seconds).toBeGreaterThanOrEqual(1.9);
    expect(seconds).toBeLessThan(5);
  });

  it("refuses connections beyond HTTP_MAX_CONNECTIONS and serves again once they close", async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => open(server.url)));
    const extra = await open(server.url);
    extra.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await extra.closed).toBeLessThan(1);
    expect(extra.received()).toBe("");
    held.forEach((c) => c.socket.destroy());
    await Promise.all(held.map((c) => c.closed));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server hears the closes after the client does
    expect((await server.client().get("/healthz")).status).toBe(200);
  });
});
