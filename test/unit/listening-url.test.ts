import { describe, expect, it } from "vitest";
import { localMcpUrl } from "../../src/mcp/endpoint.ts";
import { listeningUrl } from "../../src/transport/listening-url.ts";

// the "listening" line printed http://:::4000 for HOST=:: (not a URL a client can use)
describe("the URL of a listening server", () => {
  it("puts an IPv6 address in brackets", () => {
    expect(listeningUrl({ address: "::", family: "IPv6", port: 4000 })).toBe("http://[::]:4000");
    expect(listeningUrl({ address: "fe80::1", family: "IPv6", port: 80 })).toBe("http://[fe80::1]:80");
    expect(listeningUrl({ address: "127.0.0.1", family: "IPv4", port: 4000 })).toBe("http://127.0.0.1:4000");
  });

  it("is reached on loopback by a client on this machine when it listens on every address", () => {
    expect(localMcpUrl({ address: "::", family: "IPv6", port: 4000 })).toBe("http://[::1]:4000/mcp");
    expect(localMcpUrl({ address: "0.0.0.0", family: "IPv4", port: 4000 })).toBe("http://127.0.0.1:4000/mcp");
  });
});
