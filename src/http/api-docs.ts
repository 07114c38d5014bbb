import type { IncomingMessage } from "node:http";
import type { Config } from "../config.ts";
import { mcpTools } from "../mcp/tools.ts";
import { SERVICE_VERSION } from "../project-root.ts";
import type { Router } from "../rest/router.ts";
import { openApiDocument } from "./openapi/document.ts";
import { REFERENCE_CSP, referencePage } from "./pages/reference/page.ts";
import { jsonReply, requireReadMethod, type Reply } from "./respond.ts";

/**
 * /openapi.json and /docs (its rendering, with the MCP tools), public like the API's specification. Both are built
 * on first request and kept: they depend only on the routes and the configuration, which do not change while the
 * server runs. Returns undefined for any other path.
 */
export function createApiDocs(router: Router, config: Config): (req: IncomingMessage, path: string) => Reply | undefined {
  let json: Reply | undefined;
  let page: Reply | undefined;
  const document = () => openApiDocument(router.list(), config, SERVICE_VERSION);
  return (req, path) => {
    if (path !== "/openapi.json" && path !== "/docs") return undefined;
    requireReadMethod(req.method, path);
    if (path === "/openapi.json") return (json ??= jsonReply(200, document()));
    return (page ??= {
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": REFERENCE_CSP },
      body: referencePage(document(), mcpTools(router, config.limits)),
    });
  };
}
