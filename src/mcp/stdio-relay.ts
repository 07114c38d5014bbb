import { once } from "node:events";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isJSONRPCRequest, type JSONRPCErrorResponse, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Agent, fetch } from "undici";
import type { Logger } from "../logger.ts";

/** JSON-RPC's range for errors an implementation defines: here, a refusal of the HTTP request that carried a call. */
const REQUEST_REFUSED = -32000;

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Where the relay sends: the service's /mcp, which may move (its process ended, another took over). */
export interface RelayTarget {
  url(): Promise<string>;
  /** `url` did not answer: the next `url()` looks for the service again. */
  lost(url: string): void;
}

/**
 * A connection a message: a kept-alive one that the server closes as it stops (its idle connections at once) can be
 * closed under a message on its way, which then may or may not have been carried out; a new connection to a server
 * that stopped listening is refused, which says it was not (about 0.1 ms of loopback a message).
 */
const oneConnectionAMessage = new Agent({ pipelining: 0 });

/** A fetch that never reached a server: nothing was sent, so sending again cannot act twice. */
const refusedConnection = (error: unknown): boolean => (error as { cause?: { code?: unknown } }).cause?.code === "ECONNREFUSED";

const isJsonRpc = (value: unknown): value is JSONRPCMessage | JSONRPCMessage[] =>
  Array.isArray(value) || (typeof value === "object" && value !== null && "jsonrpc" in value);

/**
 * The answer to a line that is not one JSON-RPC message, as JSON-RPC has it (with no id: the line has none to
 * give) and as /mcp answers a batch: a client waiting on an id inside it would otherwise wait for ever. Undefined
 * for a failure of stdin itself, which no message caused.
 */
function unreadable(error: Error): { jsonrpc: "2.0"; id: null; error: { code: number; message: string } } | undefined {
  if (error instanceof SyntaxError) return { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: a line that is not JSON" } };
  if (!("issues" in error)) return undefined;
  const message = "Invalid Request: one JSON-RPC message a line (batches are not supported)";
  return { jsonrpc: "2.0", id: null, error: { code: -32600, message } };
}

/** A refused HTTP request as an MCP error, naming the service's code: `UNAUTHORIZED: Invalid or revoked API key`. */
function refusal(status: number, body: unknown): JSONRPCErrorResponse["error"] {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const message = typeof error?.code === "string" ? `${error.code}: ${String(error.message)}` : `HTTP ${status}`;
  return { code: REQUEST_REFUSED, message, data: { status } };
}

/**
 * MCP on stdin and stdout, served by the /mcp endpoint `target` names: every message read is POSTed there with
 * the key, and the answer written out. A desktop client's calls so meet every rule of the HTTP endpoint (the key
 * checked on each call, its rate limit), on the database of the server that holds it. A message whose connection
 * is refused, or that a draining server answers 503, goes once more, to where the target then names (the service's
 * process ended and another holds the database now); one cut off on its way is answered with an error, as it may
 * have been carried out. Resolves when stdin ends.
 */
export async function relayStdio(target: RelayTarget, key: string, logger: Logger): Promise<void> {
  const stdio = new StdioServerTransport();
  const post = async (message: JSONRPCMessage, retry = true): Promise<Awaited<ReturnType<typeof fetch>>> => {
    const url = await target.url();
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(message),
        dispatcher: oneConnectionAMessage,
      });
      // a server that drains answers 503 before any MCP: the message was not carried out, and goes once more
      if (response.status !== 503 || !retry) return response;
      await response.body?.cancel();
      target.lost(url);
      return await post(message, false);
    } catch (error) {
      target.lost(url);
      if (retry && refusedConnection(error)) return post(message, false);
      throw error;
    }
  };
  const forward = async (message: JSONRPCMessage): Promise<void> => {
    let error: JSONRPCErrorResponse["error"];
    try {
      const response = await post(message);
      const text = await response.text();
      const reply = parsed(text);
      // the endpoint answers MCP messages with MCP messages (also its own errors); anything else is a refusal
      if (isJsonRpc(reply)) {
        for (const answer of [reply].flat()) await stdio.send(answer);
        return;
      }
      if (response.ok && text === "") return; // a notification, accepted
      error = refusal(response.status, reply);
    } catch (cause) {
      error = { code: REQUEST_REFUSED, message: `The memory service did not answer: ${(cause as Error).message}` };
    }
    if (isJSONRPCRequest(message)) await stdio.send({ jsonrpc: "2.0", id: message.id, error });
    else logger.warn({ error: error.message }, "an MCP message that wants no answer was refused");
  };
  // the calls still in flight when stdin ends are answered before the relay closes: a client that writes its
  // requests and closes its end (a pipe, a script) still reads the answers
  const inFlight = new Set<Promise<void>>();
  stdio.onmessage = (message) => {
    const forwarding = forward(message).finally(() => inFlight.delete(forwarding));
    inFlight.add(forwarding);
  };
  stdio.onerror = (error) => {
    logger.warn({ err: error.message }, "unreadable MCP message on stdin");
    const answer = unreadable(error);
    if (answer) void stdio.send(answer as unknown as JSONRPCMessage).catch(() => {});
  };
  await stdio.start();
  await once(process.stdin, "end");
  while (inFlight.size > 0) await Promise.allSettled(inFlight);
  await stdio.close();
}
