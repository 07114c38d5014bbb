import { connect, createServer, type AddressInfo, type Socket } from "node:net";

export interface FreezableRelay {
  /** `serverUrl` with the relay's address in place of the server's. */
  url: string;
  freeze(on: boolean): void;
  close(): Promise<void>;
}

/**
 * A TCP relay to the server of `serverUrl` (Redis, PostgreSQL) that, while frozen, keeps its connections open and
 * holds what they carry, as a server stopped by a signal (kill -STOP) would; thawed, it passes on what it held.
 */
export async function freezableRelay(serverUrl: string): Promise<FreezableRelay> {
  const target = new URL(serverUrl);
  let frozen = false;
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
    }
    const pass = (to: Socket) => (chunk: Buffer) => (frozen ? held.push(() => to.write(chunk)) : to.write(chunk));
    client.on("data", pass(upstream));
    upstream.on("data", pass(client));
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String((relay.address() as AddressInfo).port);
  return {
    url: url.toString(),
    freeze: (on) => {
      frozen = on;
      if (!on) held.splice(0).forEach((write) => write());
    },
    close: () => {
      sockets.forEach((socket) => socket.destroy());
      return new Promise((resolve) => relay.close(() => resolve()));
    },
  };
}
