import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

const HEAD_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const ANSWER = Buffer.from("HTTP/1.1 204 No Content\r\n\r\n");

/**
 * A webhook endpoint for bench:events' throughput runs that only counts deliveries and answers each with 204, on
 * kept-alive connections. Not node:http with a body read (WebhookReceiver, which the latency part and the tests
 * use): that cost the listeners' thread about 0.1 ms a delivery on a small machine, and on cores shared with the
 * server it came off the throughput being measured, as a receiver on another machine would not. It reads what the
 * service sends (requests with a Content-Length) and fails loudly on anything else.
 */
export class CountingReceiver {
  accepted = 0;
  private failure: Error | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<CountingReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const receiver = new CountingReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    server.on("connection", (socket) => receiver.serve(socket));
    return receiver;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => {});
    let pending: Buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        const headEnd = pending.indexOf(HEAD_END);
        if (headEnd < 0) return;
        const length = CONTENT_LENGTH.exec(pending.toString("latin1", 0, headEnd));
        if (!length) {
          this.failure = new Error("a delivery came without a Content-Length");
          socket.destroy();
          return;
        }
        const end = headEnd + HEAD_END.length + Number(length[1]);
        if (pending.length < end) return;
        pending = pending.subarray(end);
        this.accepted++;
        socket.write(ANSWER);
      }
    });
  }

  /** Resolves once `count` deliveries have been answered. */
  async waitForAccepted(count: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.accepted < count) {
      if (this.failure) throw this.failure;
      if (Date.now() > deadline) throw new Error(`${this.accepted} of ${count} deliveries accepted after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
