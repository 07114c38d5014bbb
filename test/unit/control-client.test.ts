import { createServer, request, type Server } from "node:http";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NoServerError, remoteMcpUrl, remoteMigrated, remotePortability, remoteReindex, ServerLostError } from "../../src/control/client.ts";
import { startControlServer, type ControlCommands } from "../../src/control/server.ts";
import { controlSocketPath } from "../../src/control/socket-path.ts";
import { createLogger } from "../../src/logger.ts";

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

// a server of an earlier build, asked for a command it did not have, answered "Internal server error", all the
// CLI printed (outside probe)
describe("the CLI's control client, with a server of another build", () => {
  const dir = mkdtempSync(join(tmpdir(), "control-"));
  afterEach(() => rmSync(controlSocketPath(dir), { force: true }));

  it("says what to do when the server fails a command as an earlier build fails one it does not have", async () => {
    const earlier = createServer((req, res) => {
      req.resume();
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "INTERNAL", message: "Internal server error" } }));
    });
    await new Promise<void>((resolve) => earlier.listen(controlSocketPath(dir), resolve));
    try {
      await expect(remoteMigrated(dir)).rejects.toThrow(/^The server holding DATA_DIR failed the command \(Internal server error\); its log says why\. .*earlier build.*restart it with this build/);
    } finally {
      earlier.close();
    }
  });

  it("answers a command it does not have NOT_FOUND, saying it is the earlier build", async () => {
    const unused = () => Promise.reject(new Error("not asked in this test"));
    const commands: ControlCommands = {
      keys: { create: unused, list: unused, revoke: unused },
      reindex: unused,
      mcpUrl: () => undefined,
      portability: { exportLines: async function* () {}, importNdjson: unused },
    };
    const server = await startControlServer(dir, commands, createLogger("silent"));
    try {
      // a command of a later build
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ socketPath: controlSocketPath(dir), path: "/keys/rename", method: "POST", agent: false, headers: { "content-type": "application/json" } }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => resolve({ status: res.statusCode!, body }));
        });
        req.on("error", reject).end("{}");
      });
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body).error).toEqual({
        code: "NOT_FOUND",
        message: "The server holding DATA_DIR has no control command /keys/rename: it runs an earlier build than the command's. Restart it with that build, then run the command again.",
      });
    } finally {
      await server.close();
    }
  });
});

// With a DATA_DIR too long for a socket's address, the socket was put at /tmp/memory-service-<digest of the
// path>.sock, a name anyone could work out: another local user listening there answered the CLI in the server's
// place, handing it a key of their choosing and getting the MCP key it sent (outside probe)
describe("the control socket of a data directory whose path is too long for a socket's address", () => {
  const base = mkdtempSync(join(tmpdir(), "control-long-"));
  const dataDir = join(base, "a".repeat(60), "b".repeat(60));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const legacy = join(tmpdir(), `memory-service-${createHash("sha256").update(dataDir).digest("hex").slice(0, 16)}.sock`);
  afterEach(() => rmSync(legacy, { force: true }));

  it("lies in the data directory, is reached there, and a socket at the name under the temp directory is not", async () => {
    const impostor = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ url: "http://impostor.invalid/mcp" }));
    });
    await new Promise<void>((resolve) => impostor.listen(legacy, resolve));
    const commands = { mcpUrl: () => "http://127.0.0.1:1/mcp" } as unknown as ControlCommands;
    const control = await startControlServer(dataDir, commands, createLogger("silent"));
    try {
      expect(control.path).toBe(join(dataDir, "control.sock"));
      expect(statSync(join(dataDir, "control.sock")).isSocket()).toBe(true);
      expect((statSync(join(dataDir, "control.sock")).mode & 0o777).toString(8)).toBe("600");
      expect(await remoteMcpUrl(dataDir)).toBe("http://127.0.0.1:1/mcp");
    } finally {
      await control.close();
      impostor.close();
    }
    expect(existsSync(join(dataDir, "control.sock")), "removed as the server closes").toBe(false);
    await expect(remoteMcpUrl(dataDir)).rejects.toBeInstanceOf(NoServerError);
    rmSync(base, { recursive: true, force: true });
  });
});
