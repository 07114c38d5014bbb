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
  close(): void;
}

/**
 * POST /graphql with Accept: text/event-stream; resolves once the server has started the stream (its first
 * chunk), when the subscription is listening.
 */
export async function subscribe<T = any>(
  baseUrl: string,
  key: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Subscription<T>> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: {
      accept: "text/event-stream",
      "content-type": "application/json",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  const received: SubscriptionResult<T>[] = [];
  const receivedAt: number[] = [];
  let changed: () => void = () => {};
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const subscription: Subscription<T> = {
    status: response.status,
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
    close: () => abort.abort(),
  };
  if (!response.headers.get("content-type")?.startsWith("text/event-stream") || !response.body) {
    received.push(JSON.parse(await response.text()) as SubscriptionResult<T>);
    end();
    return subscription;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const first = await reader.read();
  const pump = async (chunk: ReadableStreamReadResult<string>): Promise<void> => {
    for (let next = chunk; !next.done; next = await reader.read()) {
      buffer += next.value;
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
    }
  };
  // ends with an abort, or when the server ends the stream
  pump(first)
    .catch(() => {})
    .finally(end);
  return subscription;
}
