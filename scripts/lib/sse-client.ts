import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";

/** One `next` payload of a GraphQL subscription. */
export interface SubscriptionResult<T = any> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** A GraphQL subscription held open over Server-Sent Events, as a browser or a back end would hold it. */
export interface Subscription<T = any> {
  status: number;
  /** Every `next` payload so far, in order. */
  received: SubscriptionResult<T>[];
  /** When each payload arrived (performance.now()), for latency. */
  receivedAt: number[];
  /** Resolves with the n-th payload (from 0) once it has come; rejects after `timeoutMs`. */
  nth(n: number, timeoutMs?: number): Promise<SubscriptionResult<T>>;
  /** Resolves once the stream has ended: closed here, or by the server. */
  ended: Promise<void>;
  /** Whether the response came whole (its last chunk): false while it streams, or when the connection was cut. */
  readonly complete: boolean;
  close(): void;
}

/**
 * POST /graphql with Accept: text/event-stream; resolves once the server has started the stream (its first
 * chunk), when the subscription is listening. Read through node:http rather than fetch: bench:events holds ten
 * of these beside the server on the same cores, and fetch's web streams cost several times the CPU per event.
 */
export async function subscribe<T = any>(
  baseUrl: string,
  key: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Subscription<T>> {
  const request = httpRequest(`${baseUrl}/graphql`, {
    method: "POST",
    headers: {
      accept: "text/event-stream",
      "content-type": "application/json",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
  });
  request.end(JSON.stringify({ query, variables }));
  const [response] = (await once(request, "response")) as [IncomingMessage];
  response.setEncoding("utf8");
  const received: SubscriptionResult<T>[] = [];
  const receivedAt: number[] = [];
  let changed: () => void = () => {};
  const ended = new Promise<void>((resolve) => response.once("close", resolve));
  const subscription: Subscription<T> = {
    status: response.statusCode ?? 0,
    received,
    receivedAt,
    async nth(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length <= n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`subscription payload ${n} did not come within ${timeoutMs} ms (got ${received.length})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          changed = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return received[n]!;
    },
    ended,
    get complete() {
      return response.complete;
    },
    close: () => request.destroy(),
  };
  // ends when closed here, or when the server ends the stream
  response.on("error", () => {});
  if (!String(response.headers["content-type"]).startsWith("text/event-stream")) {
    let body = "";
    for await (const chunk of response) body += chunk;
    received.push(JSON.parse(body) as SubscriptionResult<T>);
    return subscription;
  }
  let buffer = "";
  response.on("data", (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = message.split("\n");
      const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n");
      if (lines.includes("event: next") && data) {
        received.push(JSON.parse(data) as SubscriptionResult<T>);
        receivedAt.push(performance.now());
        changed();
      }
    }
  });
  // the stream has started once its first chunk is in
  await Promise.race([once(response, "data"), ended]);
  return subscription;
}
