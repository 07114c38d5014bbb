import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Delivery {
  /** webhook-id, webhook-timestamp and webhook-signature, as sent */
  headers: Record<string, string>;
  body: string;
  /** When it arrived (performance.now()), for latency. */
  at: number;
}

/** What the receiver answers to the n-th attempt (from 1) of a webhook-id: a status, or no answer at all. */
export type Behaviour = (attempt: number) => number | "hang";

/** A webhook endpoint on loopback that records every attempt and answers as told. */
export class WebhookReceiver {
  /** Every attempt, in arrival order. */
  readonly attempts: Delivery[] = [];
  /** The attempts it answered with a 2xx. */
  readonly accepted: Delivery[] = [];
  behaviour: Behaviour = () => 204;
  /** How long it takes to answer an attempt, after reading it. */
  answerAfterMs = 0;
  /** Attempts by webhook-id: counted as they come (a test may send hundreds; a scan of `attempts` each would grow). */
  private readonly attemptsOf = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    server.on("request", (req, res) => void receiver.handle(req, res));
    return receiver;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of req) body += chunk;
    const pick = (name: string) => String(req.headers[name] ?? "");
    const headers = Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature"].map((n) => [n, pick(n)]));
    const delivery = { headers, body, at: performance.now() };
    this.attempts.push(delivery);
    const attempt = (this.attemptsOf.get(headers["webhook-id"]!) ?? 0) + 1;
    this.attemptsOf.set(headers["webhook-id"]!, attempt);
    const answer = this.behaviour(attempt);
    if (answer === "hang") {
      this.hanging.add(res);
      return;
    }
    if (this.answerAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, this.answerAfterMs));
    if (answer >= 200 && answer < 300) this.accepted.push(delivery);
    res.writeHead(answer).end();
  }

  /** Resolves once `count` attempts have been accepted. */
  async waitForAccepted(count: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.accepted.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.accepted.length} of ${count} deliveries accepted after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The body, parsed, when its signature verifies with `secret` (standardwebhooks throws otherwise). */
  static verify(secret: string, delivery: Delivery): { type: string; timestamp: string; data: Record<string, unknown> } {
    return new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; timestamp: string; data: Record<string, unknown> };
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
