import type { AddressInfo } from "node:net";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { GraphQLSchema } from "graphql";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import type { ContextFor } from "../graphql/context.ts";
import type { Logger } from "../logger.ts";
import type { Router } from "../rest/router.ts";
import { bodyText, checkJsonDepth, readBody } from "../transport/body.ts";
import type { Exchange } from "../transport/exchange.ts";
import { bufferedReply, type Reply } from "../transport/reply.ts";
import { createMcpServer } from "./server.ts";
import { mcpTools, runTool } from "./tools.ts";
import { listeningUrl } from "../transport/listening-url.ts";

export interface McpEndpointDeps {
  config: Config;
  logger: Logger;
  schema: GraphQLSchema;
  router: Router;
  contextFor: ContextFor;
}

/** What /mcp answers a request with (or throws why not). */
export type McpEndpoint = (exchange: Exchange) => Promise<Reply>;

// the headers the transport reads; the API key stays out of the request the SDK keeps
const TRANSPORT_HEADERS = ["accept", "content-type", "mcp-protocol-version"];

/**
 * /mcp: MCP's Streamable HTTP transport, stateless as the SDK recommends for a service that scales out: every
 * POST carries its own key and gets a server of its own for that key's user, answered with plain JSON (a tool
 * call is one request, one answer). Without sessions there is no stream to open with GET, nor one to end with
 * DELETE: both are 405, as in the SDK's stateless example.
 */
export function createMcpEndpoint({ config, logger, schema, router, contextFor }: McpEndpointDeps): McpEndpoint {
  const tools = mcpTools(router, config.limits);
  return async (exchange) => {
    const { req, requestId } = exchange;
    if (req.method !== "POST") {
      throw new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on /mcp: send MCP messages with POST`, {
        headers: { allow: "POST" },
      });
    }
    const context = await contextFor(exchange);
    // read here, as for every route: the body limit holds, and bytes that are not UTF-8 are refused, not replaced
    const body = bodyText(await readBody(req, config.limits.maxBodyBytes));
    if (body.trimStart().startsWith("[")) return bufferedReply(batchRefused());
    checkJsonDepth(body, "The request body");
    const server = createMcpServer({
      tools,
      call: (tool, args) => runTool(tool, args, { req, context, schema }),
      failed: (error) => logger.error({ err: error, requestId }, "MCP request failed"),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const headers = new Headers();
      for (const name of TRANSPORT_HEADERS) {
        const value = req.headers[name];
        if (typeof value === "string") headers.set(name, value);
      }
      const response = await transport.handleRequest(new Request("http://localhost/mcp", { method: "POST", headers, body }));
      return await bufferedReply(response);
    } finally {
      await server.close();
    }
  };
}

/**
 * A JSON-RPC batch (an array of messages), refused: the SDK would run up to 100 tool calls of one POST, which the
 * rate limit counts as one request, and MCP's protocol since 2025-06-18 has no batches. -32600 as JSON-RPC's
 * Invalid Request, with no id (a batch has none of its own).
 */
function batchRefused(): Response {
  const message = "JSON-RPC batches are not supported: send one message per request (each counts against the key's rate limit)";
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message } }, { status: 400 });
}

/** Where a client on this machine reaches /mcp of a server listening at `address` (any address: loopback). */
export function localMcpUrl({ address, family, port }: AddressInfo): string {
  const host = address === "0.0.0.0" ? "127.0.0.1" : address === "::" ? "::1" : address;
  return `${listeningUrl({ address: host, family, port })}/mcp`;
}
