import { isIP } from "node:net";
import { Agent, request } from "undici";
import { hostOf, isPublicAddress, PrivateAddressError, publicOnlyLookup } from "./address-guard.ts";

export type Attempt = { ok: true; status: number } | { ok: false; status: number | null; error: string };

export interface SendOptions {
  allowPrivate: boolean;
  /** Aborts the attempt, body included: one timer for a whole batch of them (a timer each cost ~30 µs of CPU). */
  signal: AbortSignal;
}

// a receiver's answer is not read beyond its status: its body is discarded, and never more than this of it
const MAX_RESPONSE_BYTES = 64 * 1024;
// connections kept open to one origin: a busy endpoint would otherwise cost a TCP (and TLS) handshake a delivery
const CONNECTIONS_PER_ORIGIN = 16;

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
    const host = hostOf(new URL(url));
    if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
      return { ok: false, status: null, error: new PrivateAddressError(`${host} is not a public address`).message };
    }
    const response = await request(url, {
      method: "POST",
      dispatcher: agent,
      body,
      headers: { ...headers, "content-type": "application/json", "user-agent": "memory-service-webhooks" },
      // the whole exchange, body included, within timeoutMs
      signal: options.signal,
    });
    const status = response.statusCode;
    await response.body.dump({ limit: MAX_RESPONSE_BYTES });
    return status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` };
  } catch (error) {
    return { ok: false, status: null, error: (error as Error).message };
  }
}
