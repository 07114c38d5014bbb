import { request, type IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError, isErrorCode } from "../errors.ts";
import { createInterface } from "node:readline";
import type { RebuildProgress } from "../domain/indexer.ts";
import type { ImportSummary } from "../domain/import.ts";
import type { KeyAdmin, KeyRecord, NewKey } from "../domain/key-admin.ts";
import type { Portability, RestImportResult } from "../rest/portability.ts";
import { connectControl } from "./socket-path.ts";

/** Thrown when no server answers on the control socket: the CLI then opens the database itself. */
export class NoServerError extends Error {
  override name = "NoServerError";
}

/** The server stopped answering while it carried out a command (it was stopped, or died): what it did stays done. */
export class ServerLostError extends Error {
  override name = "ServerLostError";
}

/** A request's failure on the control socket: no server there, or one that went away with the request. */
const socketFailure = (error: NodeJS.ErrnoException): Error => {
  if (error.code === "ENOENT" || error.code === "ECONNREFUSED") return new NoServerError(error.message);
  // a socket refused before connecting (another user's: socket-path.ts) says so itself
  return error.code === undefined ? error : new ServerLostError(error.message, { cause: error });
};

/**
 * A command the server refused or failed, as its answer says. A server of an earlier build than this command's
 * fails one it does not have with INTERNAL ("Internal server error", its log saying "unknown control command"):
 * the message says what to do then, since nothing else tells the operator that the running server is older.
 */
function refused(answer: { error?: { code: string; message: string } }): AppError {
  const { code, message } = answer.error ?? {};
  if (isErrorCode(code) && code !== "INTERNAL") return new AppError(code, message ?? "control command failed");
  return new AppError(
    "INTERNAL",
    `The server holding DATA_DIR failed the command (${message ?? "no reason given"}); its log says why. A server of an earlier build than this command's fails a command it does not have so: if it is one, restart it with this build, then run the command again.`,
  );
}

/** http.request's options for a command to the server that holds `dataDir`. */
const controlRequest = (dataDir: string, path: string, contentType: string) => ({
  createConnection: () => connectControl(dataDir),
  path,
  method: "POST",
  headers: { "content-type": contentType },
});

function call<T>(dataDir: string, command: string, body: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const options = controlRequest(dataDir, command, "application/json");
    const req = request(
      {
        ...options,
        headers: { ...options.headers, "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as T & { error?: { code: string; message: string } };
          if (res.statusCode === 200) return resolve(parsed);
          reject(refused(parsed));
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => reject(socketFailure(error)));
    req.end(payload);
  });
}

/** KeyAdmin carried out by the server that holds the embedded database in `dataDir`. */
export function remoteKeyAdmin(dataDir: string): KeyAdmin {
  return {
    create: (user, name) => call<NewKey>(dataDir, "/keys/create", { user, name }),
    list: (user) => call<KeyRecord[]>(dataDir, "/keys/list", { user }),
    revoke: (id) => call<KeyRecord>(dataDir, "/keys/revoke", { id }),
  };
}

/** Resolves when a server holds the embedded database in `dataDir`: it migrated the database as it started. */
export async function remoteMigrated(dataDir: string): Promise<void> {
  await call<object>(dataDir, "/migrated", {});
}

/** Asks the MCP relay that holds the embedded database in `dataDir` to let it go (to a server that starts). */
export async function remoteHandover(dataDir: string): Promise<void> {
  await call<object>(dataDir, "/handover", {});
}

/** The URL of /mcp on the server that holds the embedded database in `dataDir`. */
export async function remoteMcpUrl(dataDir: string): Promise<string> {
  return (await call<{ url: string }>(dataDir, "/mcp/url", {})).url;
}

/** A control command whose answer is NDJSON: its lines as they come; `body` is sent as it is read. */
async function* lines(dataDir: string, path: string, body: string | AsyncIterable<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(controlRequest(dataDir, path, typeof body === "string" ? "application/json" : "application/x-ndjson"), resolve);
    req.on("error", (error: NodeJS.ErrnoException) => reject(socketFailure(error)));
    if (typeof body === "string") req.end(body);
    // read only once a server answers the socket: a body read for a server that is not there (stdin) would be
    // gone, in part or whole, for the database this process then opens itself
    else req.once("socket", (socket) => {
      const send = () => void pipeline(Readable.from(body), req).catch(reject);
      if (socket.connecting) socket.once("connect", send);
      else send();
    });
  });
  const answer = createInterface({ input: res, crlfDelay: Infinity })[Symbol.asyncIterator]();
  try {
    for (;;) {
      // an answer cut off (the server stopped or died) fails its read ("aborted")
      const next = await answer.next().catch((error: Error) => Promise.reject(new ServerLostError(error.message, { cause: error })));
      if (next.done) return;
      if (!next.value) continue;
      const message = JSON.parse(next.value) as Record<string, unknown> & { error?: { code: string; message: string } };
      if (res.statusCode !== 200 || message.error) throw refused(message);
      yield message;
    }
  } finally {
    await answer.return?.();
  }
}

/** Export and import carried out by the server that holds the embedded database in `dataDir`. */
export function remotePortability(dataDir: string): Portability {
  return {
    exportLines: (user, options) => lines(dataDir, "/export", JSON.stringify({ user, ...options })),
    async importNdjson(user, body, onResult) {
      for await (const message of lines(dataDir, `/import?user=${encodeURIComponent(user)}`, body)) {
        if (message.result) onResult(message.result as RestImportResult);
        if (message.summary) return message.summary as ImportSummary;
      }
      throw new ServerLostError("the server closed the import before it finished");
    },
  };
}

/** Rebuilds the vector index inside the server that holds the embedded database in `dataDir`. */
export async function remoteReindex(dataDir: string, onProgress: (progress: RebuildProgress) => void): Promise<RebuildProgress> {
  try {
    for await (const message of lines(dataDir, "/reindex", "{}")) {
      if (message.progress) onProgress(message.progress as RebuildProgress);
      if (message.result) return message.result as RebuildProgress;
    }
  } catch (error) {
    throw error instanceof AppError ? new AppError("INTERNAL", `reindex failed: ${error.message}`) : error;
  }
  throw new ServerLostError("the server closed the reindex before it finished");
}
