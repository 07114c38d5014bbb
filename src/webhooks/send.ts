import { request as httpRequest, type Agent } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { hostOf, isPublicAddress, PrivateAddressError, publicOnlyLookup } from "./address-guard.ts";

export type Attempt = { ok: true; status: number } | { ok: false; status: number | null; error: string };

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** By protocol ("http:", "https:"): where connections are kept between requests. */
  agents: Record<string, Agent>;
}

// a receiver's answer is not read beyond its status: its body is discarded, and never more than this of it
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs `body` to `url` once: a 2xx is a success, anything else (another status, a refused or slow connection,
 * a redirect, which is not followed) a failure. Never throws.
 */
export function send(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<Attempt> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const host = hostOf(target);
    if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
      return resolve({ ok: false, status: null, error: new PrivateAddressError(`${host} is not a public address`).message });
    }
    const request = (target.protocol === "https:" ? httpsRequest : httpRequest)(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "user-agent": "memory-service-webhooks" },
        signal: AbortSignal.timeout(options.timeoutMs),
        agent: options.agents[target.protocol],
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup() }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let received = 0;
        response.on("data", (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) response.destroy();
        });
        response.on("close", () =>
          resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` }),
        );
      },
    );
    request.on("error", (error: Error) => resolve({ ok: false, status: null, error: error.message }));
    request.end(body);
  });
}
