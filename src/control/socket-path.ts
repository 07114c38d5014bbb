import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";

// sockaddr_un holds about 107 bytes of path
const MAX_SOCKET_PATH = 100;

/**
 * Where a server on the embedded database listens for the operator's CLI: in the data directory, whose
 * permissions already guard the database, or under the temp directory when that path would be too long.
 */
export function controlSocketPath(dataDir: string): string {
  const inDataDir = join(dataDir, "control.sock");
  if (inDataDir.length <= MAX_SOCKET_PATH) return inDataDir;
  const digest = createHash("sha256").update(dataDir).digest("hex").slice(0, 16);
  return join(tmpdir(), `memory-service-${digest}.sock`);
}
