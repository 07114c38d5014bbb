import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../config.ts";
import { SCRIPTED_PAGE_POLICY } from "../transport/page-policy.ts";
import { jsonReply, requireReadMethod, send, type Reply } from "../transport/reply.ts";
import { IMMUTABLE, sendStatic } from "../transport/static-file.ts";
import { mcpTools } from "../mcp/tools.ts";
import { SERVICE_VERSION } from "../project-root.ts";
import { openApiDocument } from "../rest/openapi/document.ts";
import type { Router } from "../rest/router.ts";
import { withMcpTools } from "./mcp-tools.ts";
import { REFERENCE_ASSETS, reference } from "./reference.ts";

/** Answers the request and resolves true when `path` is one of the documentation's, else resolves false. */
export type ApiDocs = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;

/**
 * /openapi.json, and /docs (its rendering) with its scripts, public like the API's specification. The document
 * is built on first request and kept: it depends only on the routes and the configuration, which do not change
 * while the server runs.
 */
export function createApiDocs(router: Router, config: Config): ApiDocs {
  let json: Reply | undefined;
  const document = () => withMcpTools(openApiDocument(router.list(), config, SERVICE_VERSION), mcpTools(router, config.limits));
  return async (req, res, path) => {
    if (path === "/openapi.json") {
      requireReadMethod(req.method, path);
      send(res, (json ??= jsonReply(200, document())));
      return true;
    }
    if (path === "/docs") {
      requireReadMethod(req.method, path);
      const headers = { "content-type": "text/html; charset=utf-8", "content-security-policy": SCRIPTED_PAGE_POLICY };
      send(res, { status: 200, headers, body: (await reference()).page });
      return true;
    }
    if (!path.startsWith(REFERENCE_ASSETS)) return false;
    const asset = (await reference()).assets.get(path.slice(REFERENCE_ASSETS.length));
    if (!asset) return false;
    requireReadMethod(req.method, path);
    sendStatic(req, res, asset, { "cache-control": IMMUTABLE });
    return true;
  };
}
