import { createHash } from "node:crypto";
import { closeSync, constants, existsSync, lstatSync, openSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// sockaddr_un holds about 107 bytes of path
const MAX_SOCKET_PATH = 100;
// Linux: a descriptor's directory by a short path, through which a socket can be bound or reached
const DESCRIPTORS = "/proc/self/fd";

/** Where to bind or reach the control socket, good until `close()`. */
export interface ControlSocketAddress {
  path: string;
  close(): void;
}

/**
 * Where a server on the embedded database listens for the operator's CLI: control.sock in the data directory,
 * whose permissions already guard the database. When that path is too long for a socket's address, it is reached
 * through a descriptor of the directory (/proc/self/fd/N/control.sock: the socket still lies in the directory).
 * Without /proc, under the temp directory (per user on macOS), where the CLI reaches only a socket of its own user:
 * a name there that anyone can work out from DATA_DIR let another local user answer the CLI in the server's place
 * and take the keys it created and the MCP key it sent (outside probe, when Linux used it too).
 */
export function controlSocketAddress(dataDir: string): ControlSocketAddress {
  const inDataDir = join(dataDir, "control.sock");
  if (inDataDir.length <= MAX_SOCKET_PATH) return { path: inDataDir, close: () => undefined };
  if (existsSync(DESCRIPTORS)) {
    const fd = openSync(dataDir, constants.O_RDONLY | constants.O_DIRECTORY);
    let open = true;
    return {
      path: `${DESCRIPTORS}/${fd}/control.sock`,
      close: () => {
        if (open) closeSync(fd);
        open = false;
      },
    };
  }
  const digest = createHash("sha256").update(dataDir).digest("hex").slice(0, 16);
  return { path: join(tmpdir(), `memory-service-${digest}.sock`), close: () => undefined };
}

/** The control socket's path as the operator finds it. */
export const controlSocketPath = (dataDir: string): string => {
  const address = controlSocketAddress(dataDir);
  address.close();
  return address.path.startsWith(`${DESCRIPTORS}/`) ? join(dataDir, "control.sock") : address.path;
};

/** Refuses a socket at `path` that is not this user's (under a shared temp directory, another user's may be there). */
export function refuseForeignSocket(path: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  let owner: number;
  try {
    owner = lstatSync(path).uid;
  } catch {
    return; // none: connecting says so
  }
  if (owner !== uid) throw new Error(`${path} belongs to uid ${owner}, not to this user (uid ${uid}); it is not this service's control socket`);
}

/** A connection to the server's control socket (http.request's createConnection). */
export function connectControl(dataDir: string): Socket {
  const address = controlSocketAddress(dataDir);
  try {
    refuseForeignSocket(address.path);
  } catch (error) {
    address.close();
    throw error;
  }
  // the descriptor is needed only until the path is resolved, as connecting does
  const socket = connect(address.path);
  socket.once("connect", address.close);
  socket.once("error", address.close);
  return socket;
}
