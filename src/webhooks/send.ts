import { isIP } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { hostOf, isPublicAddress, PrivateAddressError, publicOnlyLookup } from "./address-guard.ts";

export type Attempt = { ok: true; status: number } | { ok: false; status: number | null; error: string };

export interface SendOptions {
  allowPrivate: boolean;
  /** Aborts the attempt, connecting and body included: shared by the attempts that begin together (AttemptClock). */
  signal: AbortSignal;
  /** What `signal` stands for (WEBHOOK_TIMEOUT_MS), for the error that names it. */
  timeoutMs: number;
}

/** An attempt that ran out of time, with the status of the answer whose body it was still reading, if any. */
class AttemptTimeout extends Error {
  constructor(readonly status: number | null) {
    super("the attempt ran out of time");
  }
}

// a receiver's answer is not read beyond its status: its body is discarded, and never more than this of it
const MAX_RESPONSE_BYTES = 64 * 1024;
// connections kept open to one origin: a busy endpoint would otherwise cost a TCP (and TLS) handshake a delivery;
// as many attempts are made to one origin at once (sender-thread.ts), the rest waiting their turn
export const CONNECTIONS_PER_ORIGIN = 16;

/**
 * Where deliveries' connections are made and kept, with the address guard in each connection's DNS lookup (so
 * that the address checked is the address connected to). undici rather than node:http: about 40% less CPU a
 * delivery (bench/README.md), which the machine's cores, shared with the API, are bound by under a stream of writes.
 */
export function deliveryAgent({ timeoutMs, allowPrivate }: { timeoutMs: number; allowPrivate: boolean }): Agent {
  return new Agent({
    connections: CONNECTIONS_PER_ORIGIN,
    connect: { timeout: timeoutMs, ...(allowPrivate ? {} : { lookup: publicOnlyLookup() }) },
  });
}

/**
 * POSTs `body` to `url` once, through `agent` (deliveryAgent): a 2xx is a success, anything else (another status,
 * a refused or slow connection, a redirect, which is not followed) a failure. Never throws.
 */
export async function send(agent: Agent, url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<Attempt> {
  try {
    const target = new URL(url);
    const host = hostOf(target);
    if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
      return { ok: false, status: null, error: new PrivateAddressError(`${host} is not a public address`).message };
    }
    const status = await exchange(agent, target, body, { ...headers, "content-type": "application/json", "user-agent": "memory-service-webhooks" }, options.signal);
    return status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` };
  } catch (error) {
    if (!(error instanceof AttemptTimeout)) return { ok: false, status: null, error: (error as Error).message };
    // the setting's name, not the runtime's "The operation was aborted due to timeout"
    const limit = `within ${options.timeoutMs} ms (WEBHOOK_TIMEOUT_MS)`;
    return error.status === null
      ? { ok: false, status: null, error: `no answer ${limit}` }
      : { ok: false, status: error.status, error: `answered ${error.status}, but its body did not end ${limit}` };
  }
}

/**
 * The exchange through undici's dispatcher API rather than its `request`, which wraps every answer in a readable
 * stream and promises that a delivery, whose answer is its status alone, never reads: 35-40% less of the sender
 * thread's CPU a delivery (bench/README.md, "Events"). The answer's status, once its body has ended or once
 * MAX_RESPONSE_BYTES of it have come (the connection is then dropped); the whole exchange within `signal`.
 */
function exchange(agent: Agent, url: URL, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let status = 0;
    let bytes = 0;
    let settled = false;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", timedOut);
      if (error) reject(error);
      else resolve(status);
    };
    // queued for a connection, the request is aborted as soon as it gets one
    const timedOut = () => {
      settle(new AttemptTimeout(status || null)); // before the abort, whose error would settle it otherwise
      controller?.abort(signal.reason as Error);
    };
    if (signal.aborted) return timedOut();
    signal.addEventListener("abort", timedOut, { once: true });
    agent.dispatch(
      { origin: url.origin, path: `${url.pathname}${url.search}`, method: "POST", body, headers },
      {
        onRequestStart(started) {
          controller = started;
          if (settled) started.abort(new Error("the attempt had already ended"));
        },
        onResponseStart(_, statusCode) {
          status = statusCode;
        },
        onResponseData(_, chunk) {
          bytes += chunk.length;
          if (bytes <= MAX_RESPONSE_BYTES) return;
          settle(undefined);
          controller?.abort(new Error(`answer longer than ${MAX_RESPONSE_BYTES} bytes`));
        },
        onResponseEnd() {
          settle(undefined);
        },
        onResponseError(_, error) {
          settle(error);
        },
      },
    );
  });
}
