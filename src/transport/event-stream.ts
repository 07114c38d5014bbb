import type { ServerResponse } from "node:http";

export const wantsEventStream = (accept: string | undefined): boolean => accept?.includes("text/event-stream") ?? false;

export const isEventStream = (response: Response): boolean =>
  response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;

/**
 * Server-Sent Event responses in progress (GraphQL subscriptions): written to the socket as each event comes,
 * never buffered (nor compressed, which would hold events back), and ended when the server drains rather than
 * waited for, since they last as long as the client stays.
 */
export class EventStreams {
  private readonly open = new Set<() => void>();

  async send(res: ServerResponse, response: Response): Promise<void> {
    const headers = Object.fromEntries(response.headers);
    res.writeHead(response.status, { ...headers, "cache-control": "no-cache, no-transform" });
    res.flushHeaders();
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    let ended = false;
    // cancelling the body ends the subscription (Yoga returns its iterator); the response is ended here as well,
    // since the read waiting for the next event may not settle before that event comes (or a keep-alive, seconds
    // later): a draining server would wait for it
    const end = () => {
      if (ended) return;
      ended = true;
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
        if (!res.write(value)) {
          await new Promise<void>((resolve) => {
            res.once("drain", resolve);
            res.once("close", resolve);
          });
        }
      }
    } finally {
      this.open.delete(end);
      res.off("close", end);
      end();
    }
  }

  endAll(): void {
    for (const end of this.open) end();
  }
}
