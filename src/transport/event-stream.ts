import type { ServerResponse } from "node:http";
import { AppError } from "../errors.ts";
import { leaveUncompressed } from "./uncompressed.ts";

export const wantsEventStream = (accept: string | undefined): boolean => accept?.includes("text/event-stream") ?? false;

export const isEventStream = (response: Response): boolean =>
  response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;

/**
 * Ends a subscription's stream before it is sent: Yoga's stream starts the subscription at its first read, and
 * cannot be cancelled before.
 */
export async function discardEventStream(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  await reader?.read();
  await reader?.cancel();
}

/**
 * Server-Sent Event responses in progress (GraphQL subscriptions): written to the socket as each event comes,
 * never buffered (nor compressed, which would hold events back), and ended when the server drains rather than
 * waited for, since they last as long as the client stays. Each user holds at most `maxPerUser` at once: every
 * stream holds a socket and a subscription to the user's events, which HTTP_MAX_CONNECTIONS alone would let one
 * key take for all.
 */
export class EventStreams {
  private readonly open = new Set<() => void>();
  private readonly perUser = new Map<string, number>();

  /**
   * `stallMs`: how long a stream may wait for its client to take what the socket holds. A client that stops reading
   * (a frozen tab, a proxy holding the connection) kept its socket, its place and its queued events for as long as it
   * stayed connected; past this its connection is closed, and a client that comes back reconnects.
   */
  constructor(
    private readonly maxPerUser: number,
    private readonly stallMs = 60_000,
  ) {}

  /** Sends `response` to `res` as its events come, or refuses it (429) when `userId` holds maxPerUser already. */
  async send(res: ServerResponse, response: Response, userId: string): Promise<void> {
    const held = this.perUser.get(userId) ?? 0;
    if (held >= this.maxPerUser) {
      await discardEventStream(response);
      throw new AppError("RATE_LIMITED", `A user may hold at most ${this.maxPerUser} event streams open at once; close one first`);
    }
    this.perUser.set(userId, held + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
    try {
      await this.stream(res, response, release);
    } finally {
      release();
    }
  }

  /** `release` frees the user's place as the stream ends, not once the read waiting for its next event settles. */
  private async stream(res: ServerResponse, response: Response, release: () => void): Promise<void> {
    // Yoga's "content-encoding: none" is no content-coding: the answer is kept from compression here instead
    const headers = Object.fromEntries([...response.headers].filter(([name]) => name.toLowerCase() !== "content-encoding"));
    leaveUncompressed(res);
    // 200 whatever Yoga set (400 for a subscription refused in validation or as it starts): the GraphQL over SSE
    // protocol has such errors sent as the accepted stream's payload, and its clients (graphql-sse) take any other
    // status for a failed connection, retrying it and dropping the errors the stream carries
    res.writeHead(200, { ...headers, "cache-control": "no-cache, no-transform" });
    res.flushHeaders();
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    let ended = false;
    // cancelling the body ends the subscription (Yoga returns its iterator); the response is ended and the user's
    // place freed here as well, since the read waiting for the next event may not settle before that event comes (or
    // a keep-alive, 12 s later): a draining server would wait for it, and a client reconnecting would be refused
    const end = () => {
      if (ended) return;
      ended = true;
      release();
      void reader.cancel().catch(() => {});
      res.end();
    };
    this.open.add(end);
    res.once("close", end);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || ended) break;
        // the relay publishes a round's events at once, and they reach this stream within one turn of the event
        // loop but not within one tick: corked until the next turn, they leave as one write, not one write (a
        // syscall, and a wake-up of the client) per event
        if (!res.writableCorked) {
          res.cork();
          setImmediate(() => res.uncork());
        }
        if (!res.write(value) && !(await this.drained(res))) {
          res.destroy();
          break;
        }
      }
    } finally {
      this.open.delete(end);
      res.off("close", end);
      end();
    }
  }

  /** Whether the client took what the socket held within stallMs (or left: then the stream ends anyway). */
  private drained(res: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const settle = (taken: boolean) => () => {
        clearTimeout(timer);
        res.off("drain", onDrain);
        res.off("close", onDrain);
        resolve(taken);
      };
      const onDrain = settle(true);
      const timer = setTimeout(settle(false), this.stallMs);
      res.once("drain", onDrain);
      res.once("close", onDrain);
    });
  }

  /** Streams being sent now. */
  get count(): number {
    return this.open.size;
  }

  endAll(): void {
    for (const end of this.open) end();
  }
}
