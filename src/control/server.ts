import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { AppError, asAppError } from "../errors.ts";
import type { RebuildProgress } from "../domain/indexer.ts";
import type { KeyAdmin } from "../domain/key-admin.ts";
import { restErrorReply } from "../rest/errors.ts";
import { parseJsonBody, readBody } from "../transport/body.ts";
import { send, sendJson } from "../transport/reply.ts";
import type { Logger } from "../logger.ts";
import { controlSocketPath } from "./socket-path.ts";

const MAX_CONTROL_BODY = 64 * 1024;

/** What the operator's CLI can ask of a running server. */
export interface ControlCommands {
  keys: KeyAdmin;
  reindex(onProgress: (progress: RebuildProgress) => void): Promise<RebuildProgress>;
  /** Where a client on this machine reaches the server's /mcp; undefined until the server listens. */
  mcpUrl(): string | undefined;
}

export interface ControlServer {
  path: string;
  close(): Promise<void>;
}

/**
 * The operator's channel into a server that holds the embedded database: PGlite admits one process, so the
 * `keys` CLI sends its commands here while the server runs (and `mcp` asks where to send MCP messages). A Unix
 * socket readable only by this user.
 */
export async function startControlServer(dataDir: string, commands: ControlCommands, logger: Logger): Promise<ControlServer> {
  const path = controlSocketPath(dataDir);
  try {
    unlinkSync(path); // left by a server that did not stop cleanly; the data-dir lock proves it is gone
  } catch {
    // none
  }
  const server: Server = createServer((req, res) => {
    if (req.url === "/reindex") return void streamReindex(res, commands, logger);
    handle(req, commands).then(
      (body) => sendJson(res, 200, body),
      (error: unknown) => {
        const appError = asAppError(error);
        if (appError.code === "INTERNAL") logger.error({ err: error }, "control command failed");
        send(res, restErrorReply(appError));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Long-running: one JSON line per progress report, then the result (or the error). */
async function streamReindex(res: ServerResponse, commands: ControlCommands, logger: Logger): Promise<void> {
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  try {
    const result = await commands.reindex((progress) => res.write(`${JSON.stringify({ progress })}\n`));
    res.end(`${JSON.stringify({ result })}\n`);
  } catch (error) {
    logger.error({ err: error }, "reindex failed");
    res.end(`${JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error) } })}\n`);
  }
}

async function handle(req: IncomingMessage, { keys: admin, mcpUrl }: ControlCommands): Promise<unknown> {
  const body = parseJsonBody(req, await readBody(req, MAX_CONTROL_BODY)) as Record<string, string>;
  switch (req.url) {
    case "/mcp/url": {
      const url = mcpUrl();
      if (!url) throw new AppError("SERVICE_UNAVAILABLE", "The server is starting: it does not listen yet");
      return { url };
    }
    case "/keys/create":
      return admin.create(body.user ?? "", body.name ?? "");
    case "/keys/list":
      return admin.list(body.user ?? "");
    case "/keys/revoke":
      return admin.revoke(body.id ?? "");
    default:
      throw new Error(`unknown control command ${req.url}`);
  }
}
