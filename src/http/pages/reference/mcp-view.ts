import type { McpTool } from "../../../mcp/tools.ts";
import { ROUTE_DOCS } from "../../openapi/document.ts";
import type { Schema } from "../../openapi/types.ts";
import { anchor, escapeHtml, prose } from "./html.ts";
import { schemaView } from "./schema-view.ts";

/** The MCP section of /docs: how to connect, then each tool with its arguments and the route it runs. */
export function mcpSection(tools: readonly McpTool[], resolve: (target: string) => Schema): { toc: string; body: string } {
  const toc = [
    '<h2><a href="#mcp">MCP tools</a></h2><ul>',
    ...tools.map((tool) => `<li><a href="#${anchor("tool", tool.name)}">${escapeHtml(tool.name)}</a></li>`),
    "</ul>",
  ].join("\n");
  const intro = [
    '<h2 id="mcp">MCP tools</h2>',
    `<p>${prose(
      "The API as tools for AI agents (Model Context Protocol): Streamable HTTP at `POST /mcp` (stateless, JSON " +
        "answers) with the same API key as every route, or stdio with `npm run mcp -- --key <key>`. Each tool runs " +
        "the REST operation named below, with its rules, and answers that operation's JSON as text; a refusal is a " +
        'tool result with `isError: true` and the REST error body, e.g. `{"error": {"code": "NOT_FOUND", ...}}`. ' +
        "MCP calls count against the key's rate limit. The server also offers the resource template `memory://{id}` " +
        "(a memory as get_memory gives it) and the prompt `memory_guide` (when to remember and when to recall).",
    )}</p>`,
  ];
  const sections = tools.map((tool) => {
    const operation = ROUTE_DOCS[tool.route]?.operationId;
    const [method = "", pattern = ""] = tool.route.split(" ");
    const route = `<span class="method ${method.toLowerCase()}">${escapeHtml(method)}</span> ${escapeHtml(pattern)}`;
    return [
      `<section class="op" id="${anchor("tool", tool.name)}">`,
      `<h3><code>${escapeHtml(tool.name)}</code> ${escapeHtml(tool.title)}</h3>`,
      `<p>${prose(tool.description)}</p>`,
      `<p>Runs ${operation ? `<a href="#${anchor("op", operation)}">${route}</a>` : route}.</p>`,
      "<h4>Arguments</h4>",
      schemaView(tool.inputSchema, resolve),
      "</section>",
    ].join("\n");
  });
  return { toc, body: [...intro, ...sections].join("\n") };
}
