import type { AddressInfo } from "node:net";

/** The URL of a server listening at `address`, as a client writes it: an IPv6 address in brackets. */
export const listeningUrl = ({ address, family, port }: Pick<AddressInfo, "address" | "family" | "port">): string =>
  `http://${family === "IPv6" ? `[${address}]` : address}:${port}`;
