import type { IncomingMessage } from "node:http";

/**
 * The address a request came from. Behind `trustedHops` proxies, each of which appends the address it heard
 * from to X-Forwarded-For, the client is that many entries from the right; entries further left were written
 * by the client itself and prove nothing. With no proxy (0) the header is ignored: anyone could send it.
 */
export function clientAddress(req: IncomingMessage, trustedHops: number): string {
  const socket = req.socket.remoteAddress ?? "unknown";
  if (trustedHops === 0) return socket;
  const header = req.headers["x-forwarded-for"];
  const forwarded = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").map((part) => part.trim()).filter(Boolean);
  const chain = [...forwarded, socket];
  return chain[Math.max(0, chain.length - 1 - trustedHops)]!;
}
