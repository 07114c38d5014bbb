import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { AppError, asAppError } from "../errors.ts";
import type { RebuildProgress } from "../domain/indexer.ts";
import type { KeyAdmin } from "../domain/key-admin.ts";
import { restError, restErrorReply } from "../rest/errors.ts";
import type { Portability } from "../rest/portability.ts";
import { sendNdjson } from "../transport/ndjson.ts";
import { parseJsonBody, readBody } from "../transport/body.ts";
import { send, sendJson } from "../transport/reply.ts";
import type { Logger } from "../logger.ts";
import { controlSocketAddress, controlSocketPath, refuseForeignSocket } from "./socket-path.ts";

const MAX_CONTROL_BODY = 64 * 1024;

/** What the operator's CLI can ask of a running server. */
export interface ControlCommands {
  keys: KeyAdmin;
  reindex(onProgress: (progress: RebuildProgress) => void): Promise<RebuildProgress>;
  /** Where a client on this machine reaches the server's /mcp; undefined until the server listens. */
  mcpUrl(): string | undefined;
  portability: Portability;
  /** Lets the data directory go to a server that starts (an MCP relay's service: afterCommands); absent for a server. */
  handover?(): void;
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
  const address = controlSocketAddress(dataDir);
  try {
    return await listenOn(address.path, commands, logger, () => address.close(), controlSocketPath(dataDir));
  } catch (error) {
    address.close();
    throw error;
  }
}

async function listenOn(path: string, commands: ControlCommands, logger: Logger, closed: () => void, shownPath: string): Promise<ControlServer> {
  refuseForeignSocket(path);
  try {
    unlinkSync(path); // left by a server that did not stop cleanly; the data-dir lock proves it is gone
  } catch {
    // none
  }
  // an export or an import takes as long as the user's records do
  const server: Server = createServer({ requestTimeout: 0 }, (req, res) => {
    if (req.url === "/reindex") return void streamReindex(res, commands, logger);
    if (req.url === "/export") return void streamExport(req, res, commands.portability, logger);
    if (req.url?.startsWith("/import?")) return void streamImport(req, res, commands.portability, logger);
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
    path: shownPath,
    close: () =>
      new Promise((resolve) => {
        // closing unlinks the socket by the path it was bound at: the directory's descriptor is let go after
        server.close(() => {
          closed();
          resolve();
        });
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

const errorLine = (error: unknown) => ({ error: restError(asAppError(error)) });

/** NDJSON: the export's lines, or an error line that ends them. */
async function streamExport(req: IncomingMessage, res: ServerResponse, portability: Portability, logger: Logger): Promise<void> {
  try {
    const { user, history, embeddings } = parseJsonBody(req, await readBody(req, MAX_CONTROL_BODY)) as Record<string, unknown>;
    await sendNdjson(res, {}, portability.exportLines(String(user), { history: history === true, embeddings: embeddings === true }), errorLine);
  } catch (error) {
    if (asAppError(error).code === "INTERNAL") logger.error({ err: error }, "export failed");
    if (!res.headersSent) send(res, restErrorReply(asAppError(error)));
  }
}

/** Reads the body (NDJSON) as it comes; answers one line per failed record, then the summary (or an error line). */
async function streamImport(req: IncomingMessage, res: ServerResponse, portability: Portability, logger: Logger): Promise<void> {
  const user = new URL(req.url ?? "/", "http://control").searchParams.get("user") ?? "";
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  try {
    const summary = await portability.importNdjson(user, req, (result) => result.status === "failed" && res.write(`${JSON.stringify({ result })}\n`));
    res.end(`${JSON.stringify({ summary })}\n`);
  } catch (error) {
    if (asAppError(error).code === "INTERNAL") logger.error({ err: error }, "import failed");
    res.end(`${JSON.stringify(errorLine(error))}\n`);
  }
}

async function handle(req: IncomingMessage, commands: ControlCommands): Promise<unknown> {
  const { keys: admin, mcpUrl } = commands;
  const body = parseJsonBody(req, await readBody(req, MAX_CONTROL_BODY)) as Record<string, string>;
  switch (req.url) {
    // the server migrated its database before it opened this socket: `npm run migrate` asks only that it is there
    case "/migrated":
      return {};
    case "/mcp/url": {
      const url = mcpUrl();
      if (!url) throw new AppError("SERVICE_UNAVAILABLE", "The server does not listen: it is starting, or stopping");
      return { url };
    }
    case "/handover":
      if (!commands.handover) throw new AppError("VALIDATION_ERROR", "A server does not hand its data directory over");
      commands.handover();
      return {};
    case "/keys/create":
      return admin.create(body.user ?? "", body.name ?? "");
    case "/keys/list":
      return admin.list(body.user ?? "");
    case "/keys/revoke":
      return admin.revoke(body.id ?? "");
    default:
      // sent by a CLI of a later build than this server's
      throw new AppError("NOT_FOUND", `The server holding DATA_DIR has no control command ${req.url}: it runs an earlier build than the command's. Restart it with that build, then run the command again.`);
  }
}
