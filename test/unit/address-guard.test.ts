import { describe, expect, it } from "vitest";
import { isPublicAddress } from "../../src/webhooks/address-guard.ts";

describe("isPublicAddress (the webhook SSRF guard)", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "168.63.129.16", // Azure's WireServer and DNS, at a public-looking address
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",
    "::ffff:127.0.0.1",
    "::ffff:a00:1",
    "::ffff:0:7f00:1",
    "::ffff:0:808:808",
    "::7f00:1",
    "ff:1::1",
    "ff02::1",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "2002:7f00:1::",
    "2001::1",
    "2001:db8::1",
    "100::1",
    "fec0::1",
    "64:ff9b:1::a00:1",
    "not an address",
  ])("%s is not public", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "::ffff:808:808"])(
    "%s is public",
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});
