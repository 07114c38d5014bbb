import { request } from "node:http";
import { AppError, isErrorCode } from "../errors.ts";
import { createInterface } from "node:readline";
import type { RebuildProgress } from "../domain/indexer.ts";
import type { KeyAdmin, KeyRecord, NewKey } from "../domain/key-admin.ts";
import { controlSocketPath } from "./socket-path.ts";

/** Thrown when no server answers on the control socket: the CLI then opens the database itself. */
export class NoServerError extends Error {
  override name = "NoServerError";
}

function call<T>(socketPath: string, command: string, body: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      {
        socketPath,
        path: command,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as T & { error?: { code: string; message: string } };
          if (res.statusCode === 200) return resolve(parsed);
          const code = parsed.error?.code;
          reject(new AppError(isErrorCode(code) ? code : "INTERNAL", parsed.error?.message ?? "control command failed"));
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") reject(new NoServerError(error.message));
      else reject(error);
    });
    req.end(payload);
  });
}

/** KeyAdmin carried out by the server that holds the embedded database in `dataDir`. */
export function remoteKeyAdmin(dataDir: string): KeyAdmin {
  const path = controlSocketPath(dataDir);
  return {
    create: (user, name) => call<NewKey>(path, "/keys/create", { user, name }),
    list: (user) => call<KeyRecord[]>(path, "/keys/list", { user }),
    revoke: (id) => call<KeyRecord>(path, "/keys/revoke", { id }),
  };
}

/** The URL of /mcp on the server that holds the embedded database in `dataDir`. */
export async function remoteMcpUrl(dataDir: string): Promise<string> {
  return (await call<{ url: string }>(controlSocketPath(dataDir), "/mcp/url", {})).url;
}

/** Rebuilds the vector index inside the server that holds the embedded database in `dataDir`. */
export function remoteReindex(dataDir: string, onProgress: (progress: RebuildProgress) => void): Promise<RebuildProgress> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: controlSocketPath(dataDir), path: "/reindex", method: "POST" }, (res) => {
      let settled = false;
      createInterface({ input: res }).on("line", (line) => {
        const message = JSON.parse(line) as { progress?: RebuildProgress; result?: RebuildProgress; error?: { message: string } };
        if (message.progress) onProgress(message.progress);
        if (message.result) (settled = true), resolve(message.result);
        if (message.error) (settled = true), reject(new AppError("INTERNAL", `reindex failed: ${message.error.message}`));
      });
      res.on("end", () => settled || reject(new Error("the server closed the reindex before it finished")));
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") reject(new NoServerError(error.message));
      else reject(error);
    });
    req.end();
  });
}
