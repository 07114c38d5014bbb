import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import { isPlainObject } from "../domain/json.ts";
import { asAppError, type AppError } from "../errors.ts";
import { SERVICE_VERSION } from "../project-root.ts";
import { restErrorReply } from "../rest/errors.ts";
import type { McpTool } from "./tools.ts";

/** What the server tells an agent at the handshake, and the `memory_guide` prompt: when to call what. */
const MEMORY_GUIDE = [
  "You have a long-term memory of the user, kept between conversations, through these tools.",
  "",
  "- Call `recall` with the topic at the start of a task, when the user refers to something from before, and before " +
    'answering a question about them ("what do I like?"). Use `search_memories` to look for something specific, by ' +
    "type, tags or dates.",
  "- Call `remember` when you learn something worth knowing next time: a preference (type preference), a fact about " +
    "their life or work (observation), a plan or task (task), or anything they ask you to remember. One self-contained " +
    "statement a memory. Recall first rather than store the same thing twice, and do not store what matters only in " +
    "this conversation.",
  "- When a memory turns out wrong, correct it with `update_memory`; when the user asks you to forget something, " +
    "`forget` it.",
  "- Keep the memories of one project or conversation together in a thread: `create_thread`, then `remember` with its " +
    "thread_id; `recall` with a thread_id stays within it.",
].join("\n");

/**
 * A JSON-RPC error whose message is sent as written. The SDK sends a thrown error's code and message; its McpError
 * writes "MCP error <code>: " into the message, and the SDK's client, making an McpError of what it receives, writes
 * it again: agents read "MCP error -32602: MCP error -32602: There is no tool …".
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * tools/call with its arguments as sent. The SDK hands the handler the request as this schema parses it: its own
 * (CallToolRequestSchema) rebuilt the arguments, dropping one called __proto__, which JSON allows and the service
 * refuses as it refuses any unknown. Arguments that are not an object are refused here, before the SDK's own check,
 * whose message was its validator's report as JSON.
 */
const CallToolAsSent = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({
    arguments: z
      .custom<Readonly<Record<string, unknown>>>((given) => {
        if (isPlainObject(given)) return true;
        throw new RpcError(ErrorCode.InvalidParams, "arguments must be a JSON object holding the tool's arguments by name");
      })
      .optional(),
  }),
});

/** The JSON-RPC code MCP gives a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

// The SDK gives each server a JSON Schema validator for elicitation, which this one never asks for; one shared
// keeps a server per request cheap (building an Ajv instance costs about what the rest of an MCP request does).
const validator = new AjvJsonSchemaValidator();

export interface CallerTools {
  tools: readonly McpTool[];
  /** Runs a tool for the caller the server is made for; rejects with the service's error. */
  call(tool: McpTool, args: Readonly<Record<string, unknown>>): Promise<unknown>;
  /** Hears of unexpected failures, which the caller sees only as INTERNAL. */
  failed(error: unknown): void;
}

/** The service's error as REST answers it, `{"error": {"code", "message"}}`, with fields named the REST way. */
const errorText = (error: AppError): string => restErrorReply(error).body;

/** An MCP server for one caller: the tools, the `memory://{id}` resources and the guide prompt. */
export function createMcpServer({ tools, call, failed }: CallerTools): McpServer {
  const mcp = new McpServer(
    { name: "memory-service", title: "Memory service", version: SERVICE_VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: MEMORY_GUIDE, jsonSchemaValidator: validator },
  );
  const byName = new Map(tools.map((tool) => [tool.name as string, tool]));
  const refusal = (error: unknown): AppError => {
    const appError = asAppError(error);
    if (appError.code === "INTERNAL") failed(error);
    return appError;
  };

  // The protocol's own handlers rather than registerTool, which wants zod schemas and checks arguments with them:
  // a second set of rules with messages of their own. These schemas are the REST reference's, and the service
  // checks the arguments as it checks a REST request.
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    })),
  }));
  mcp.server.setRequestHandler(CallToolAsSent, async ({ params }): Promise<CallToolResult> => {
    const tool = byName.get(params.name);
    if (!tool) throw new RpcError(ErrorCode.InvalidParams, `There is no tool ${params.name}`);
    try {
      return { content: [{ type: "text", text: JSON.stringify(await call(tool, params.arguments ?? {})) }] };
    } catch (error) {
      return { isError: true, content: [{ type: "text", text: errorText(refusal(error)) }] };
    }
  });

  // The protocol's own handlers for the one resource template and the one prompt, rather than the SDK's registries:
  // those answer a prompt or resource that is not there with its McpError, whose message the client prefixes again
  // ("MCP error -32602: MCP error -32602: Prompt nope not found"), and a missing resource as invalid params rather
  // than MCP's resource-not-found; these answer as tools/call does (outside probe).
  const getMemory = byName.get("get_memory")!;
  mcp.server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  mcp.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: "memory://{id}",
        name: "memory",
        title: "A memory",
        description: "One of your memories by its id, as get_memory gives it.",
        mimeType: "application/json",
      },
    ],
  }));
  mcp.server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }): Promise<ReadResourceResult> => {
    const id = /^memory:\/\/([^/?#]+)$/.exec(uri)?.[1];
    if (id === undefined) throw new RpcError(RESOURCE_NOT_FOUND, `There is no resource ${uri}: a memory is memory://{id}`);
    try {
      const memory = await call(getMemory, { id });
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(memory) }] };
    } catch (error) {
      const appError = refusal(error);
      throw new RpcError(appError.code === "NOT_FOUND" ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, errorText(appError));
    }
  });
  mcp.server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [{ name: "memory_guide", title: "Using memory", description: "When to remember, when to recall, and how to keep memories right." }],
  }));
  mcp.server.setRequestHandler(GetPromptRequestSchema, ({ params }) => {
    if (params.name !== "memory_guide") throw new RpcError(ErrorCode.InvalidParams, `There is no prompt ${params.name} (the one prompt: memory_guide)`);
    return { messages: [{ role: "user", content: { type: "text", text: MEMORY_GUIDE } }] };
  });
  // the SDK declares listChanged for the tools it serves, a promise of notifications when a list changes: these
  // lists never change, and over HTTP (stateless, GET 405) there is no stream to send a notification on
  mcp.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });
  return mcp;
}
