import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NoServerError, remotePortability, remoteReindex, ServerLostError } from "../../src/control/client.ts";
import { controlSocketPath } from "../../src/control/socket-path.ts";

/** A control socket whose server answers one NDJSON line, then dies with the connection open. */
async function dyingServer(dir: string, line: object): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    res.write(`${JSON.stringify(line)}\n`);
    setTimeout(() => res.socket!.destroy(), 20);
  });
  await new Promise<void>((resolve) => server.listen(controlSocketPath(dir), resolve));
  return server;
}

async function* oneLine() {
  yield Buffer.from('{"kind":"memory"}\n');
}

describe("the CLI's control client, when the server goes away", () => {
  const dirs: string[] = [];
  const servers: Server[] = [];
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "control-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    servers.splice(0).forEach((server) => server.close());
    dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  it("says no server answers when none listens (the CLI then opens the database itself)", async () => {
    await expect(remotePortability(newDir()).importNdjson("u", oneLine(), () => {})).rejects.toBeInstanceOf(NoServerError);
  });

  it("says the server was lost, after the results it gave, when it dies during an import", async () => {
    const dir = newDir();
    servers.push(await dyingServer(dir, { result: { line: 1, status: "created" } }));
    const results: unknown[] = [];
    const failure = await remotePortability(dir)
      .importNdjson("u", oneLine(), (result) => results.push(result))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerLostError);
    expect(results).toEqual([{ line: 1, status: "created" }]);
  });

  it("says the server was lost when it dies during a reindex", async () => {
    const dir = newDir();
    servers.push(await dyingServer(dir, { progress: { done: 1, total: 2 } }));
    await expect(remoteReindex(dir, () => {})).rejects.toBeInstanceOf(ServerLostError);
  });
});
