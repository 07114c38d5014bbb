import type { McpTool } from "../mcp/tools.ts";
import { openApiPath } from "../rest/openapi/document.ts";
import type { Method, OpenApiDocument, Schema } from "../rest/openapi/types.ts";

const INTRO =
  "The API as tools for AI agents (Model Context Protocol): Streamable HTTP at `POST /mcp` (stateless, JSON " +
  "answers) with the same API key as every route, or stdio with `npm run mcp -- --key <key>`. Each tool runs " +
  "the REST operation named below, with its rules, and answers that operation's JSON as text; a refusal is a " +
  'tool result with `isError: true` and the REST error body, e.g. `{"error": {"code": "NOT_FOUND", ...}}`. ' +
  "MCP calls count against the key's rate limit. The server also offers the resource template `memory://{id}` " +
  "(a memory as get_memory gives it) and the prompt `memory_guide` (when to remember and when to recall).";

/**
 * The document with a section on the MCP tools after its overview: MCP has no OpenAPI of its own, and each tool is
 * one of the document's operations under another name, so its description is where a reader of either looks.
 */
export function withMcpTools(document: OpenApiDocument, tools: readonly McpTool[]): OpenApiDocument {
  const sections = tools.map((tool) => {
    const [method = "", pattern = ""] = tool.route.split(" ");
    const path = openApiPath(pattern);
    const operation = document.paths[path]?.[method.toLowerCase() as Method];
    if (!operation) throw new Error(`MCP tool ${tool.name} runs ${tool.route}, which the document lacks`);
    const required = new Set(tool.inputSchema.required);
    const items = Object.entries(tool.inputSchema.properties).map(
      ([name, schema]) =>
        `- \`${name}\` (${typeLabel(schema)}${required.has(name) ? ", required" : ""}): ${oneLine(describe(schema))}`,
    );
    return [
      `### ${tool.name}`,
      `**${tool.title}.** ${tool.description}`,
      `Runs [${method} ${path}](#${operationAnchor(operation.tags[0] ?? "", method, path)}) (\`${operation.operationId}\`).`,
      ["Arguments:", ...items].join("\n"),
    ].join("\n\n");
  });
  const description = [document.info.description, "## MCP tools", INTRO, ...sections].join("\n\n");
  return { ...document, info: { ...document.info, description } };
}

/** Where the reference (Scalar) puts an operation: `tag/legacy-deprecated/POST/api/v1/memories`. */
const operationAnchor = (tag: string, method: string, path: string): string =>
  `tag/${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}/${method}${path}`;

function typeLabel(schema: Schema): string {
  if (schema.enum) return `one of ${schema.enum.map((value) => `\`${String(value)}\``).join(", ")}`;
  if (schema.oneOf) return schema.oneOf.map(typeLabel).join(" or ");
  const types = [schema.type ?? []].flat();
  const named = types.filter((type) => type !== "null").map((type) => {
    if (type === "array") return `array of ${schema.items ? typeLabel(schema.items) : "anything"}`;
    return schema.format ? `${type} (${schema.format})` : type;
  });
  return [...named, ...(types.includes("null") ? ["null"] : [])].join(" or ") || "any JSON";
}

function describe(schema: Schema): string {
  const text = schema.description ?? "";
  return schema.default === undefined ? text : `${text} Default: \`${JSON.stringify(schema.default)}\`.`.trim();
}

/** Text that stays inside one item of a Markdown list. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ");
