import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

// where a webhook must not reach unless WEBHOOK_ALLOW_PRIVATE: this host, private networks, link-local (cloud
// metadata at 169.254.169.254, fd00:ec2::254), Azure's platform address (168.63.129.16, its WireServer and DNS,
// answering each VM at that public-looking address), shared, reserved and documentation ranges, multicast, and the
// IPv6 transition prefixes that carry an IPv4 address inside (6to4, Teredo, NAT64), which could lead to any of them
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["168.63.129.16", 32],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // ::, ::1 and the deprecated IPv4-compatible addresses (IPv4-mapped ones are checked as IPv4)
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23], // IETF protocol assignments, Teredo (2001::/32) among them
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");
}
// the rest of IANA's "Reserved by IETF" 0000::/8, the IPv4-translated addresses of SIIT (::ffff:0:a.b.c.d) among them,
// which a translator on the path turns into the IPv4 address inside. Around ::ffff:0:0/96 (IPv4-mapped), where the
// BlockList looks up every IPv4 address, so that a rule there would refuse them all.
NOT_PUBLIC.addRange("::1:0:0", "::fffe:ffff:ffff", "ipv6");
NOT_PUBLIC.addRange("::1:0:0:0", "ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ipv6");

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = family === 6 ? mappedIpv4(address) : undefined;
  if (mapped) return isPublicAddress(mapped);
  return !NOT_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The IPv4 address inside an IPv4-mapped IPv6 one, written either way (::ffff:10.0.0.1 or ::ffff:a00:1). */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
  readonly code = "EPRIVATEADDRESS";
}

/** A URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1");

/**
 * A DNS lookup for the deliveries' connections (send.ts) that refuses a host with any address that is not public,
 * so that the address checked is the address connected to (a name that resolved to a public address at
 * registration may not later).
 */
export function publicOnlyLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.find(({ address }) => !isPublicAddress(address));
      if (refused || addresses.length === 0) {
        const reason = refused ? `${hostname} resolves to a non-public address` : `${hostname} has no address`;
        return callback(new PrivateAddressError(reason), "", 0);
      }
      // Node asks for every address when it tries them in turn (autoSelectFamily)
      if (options.all) return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Every address `host` (a name or an IP literal) stands for; rejects when it does not resolve. */
export function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return Promise.resolve([host]);
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((a) => a.address)))),
  );
}
