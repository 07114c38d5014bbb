import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Limits } from "../config.ts";
import { invalid } from "../errors.ts";
import type { RestHandler, RestRequest, Router } from "../rest/router.ts";
import { inputSchemas, type InputSchema, type ToolName } from "./input-schemas.ts";
import { ToolArguments } from "./tool-arguments.ts";

interface ToolDefinition {
  title: string;
  /** What a model reads to decide when and how to call the tool. */
  description: string;
  /** The REST route whose handler runs the tool, so that a tool has that route's rules and answers its JSON. */
  route: string;
  annotations: ToolAnnotations;
}

const READS: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const CHANGES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const DEFINITIONS: Record<ToolName, ToolDefinition> = {
  remember: {
    title: "Remember",
    description:
      "Store a memory about the user: a fact, preference, event, plan or task worth knowing in a later conversation. " +
      "content is text (one self-contained statement works best) or a JSON object for a structured record. Give a type " +
      "(preference, observation, journal, task, insight): recall answers questions about the user from their preference " +
      "memories. For something true only for a while (a plan for today, a temporary code), give ttl_seconds or " +
      "expires_at: the memory is forgotten then. Returns the memory stored, with its id; with dedupe: true, a memory " +
      "the user already has with the same content, type and thread is returned instead (deduplicated: true) and nothing is stored.",
    route: "POST /api/v1/memory",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  recall: {
    title: "Recall",
    description:
      "Find what is known that bears on the conversation: call it at the start of a task, when the user refers to " +
      'something from before, or before answering a question about them ("what do I like?", "what should you know ' +
      'about me?"), which is answered from their preferences. Anything else is matched by words and by meaning; ' +
      "thread_id keeps to one thread. Returns memories, most relevant first, each with a relevance from 0 to 1.",
    route: "POST /api/v1/memory/recall",
    annotations: READS,
  },
  search_memories: {
    title: "Search memories",
    description:
      "Look for memories by meaning and words, narrowed by type, tags or creation time: for something specific, where " +
      "recall is for whatever matters now. Archived memories are left out. Returns results nearest first, each with a " +
      "score from 0 to 1.",
    route: "GET /api/v1/memory/search",
    annotations: READS,
  },
  list_memories: {
    title: "List memories",
    description:
      "List memories newest first, by type, tags, thread or archived state, a page at a time (limit and offset, or the " +
      "next_cursor of the page before as cursor). Returns {memories, total, limit, offset, has_more, next_cursor}.",
    route: "GET /api/v1/memory",
    annotations: READS,
  },
  get_memory: {
    title: "Get a memory",
    description: "Read one memory by its id.",
    route: "GET /api/v1/memories/:id",
    annotations: READS,
  },
  update_memory: {
    title: "Update a memory",
    description:
      "Change the fields given and keep the others: correct the content, retag, file under a thread, or archive " +
      "(is_archived: true leaves it out of search and recall), or set when it expires (ttl_seconds or expires_at; " +
      "expires_at: null keeps it for good). null clears type, tags, metadata or thread_id. Returns the memory as changed.",
    route: "PATCH /api/v1/memories/:id",
    annotations: CHANGES,
  },
  forget: {
    title: "Forget",
    description:
      "Delete a memory for good, by its id: when the user asks you to forget something, or a memory is wrong and not " +
      "worth correcting. Returns {ok: true}.",
    route: "DELETE /api/v1/memories/:id",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  create_thread: {
    title: "Create a thread",
    description:
      "Start a thread: a group of memories for one conversation, project or topic. File memories under it with " +
      "remember's thread_id. Returns the thread, active, with its id.",
    route: "POST /api/v1/threads",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  list_threads: {
    title: "List threads",
    description: "List threads newest first, optionally only those in one state (active, archived, completed).",
    route: "GET /api/v1/threads",
    annotations: READS,
  },
  get_thread: {
    title: "Get a thread",
    description: "Read one thread by its id, with its memories when include_memories is true. Returns {thread}.",
    route: "GET /api/v1/threads/:id",
    annotations: READS,
  },
  update_thread: {
    title: "Update a thread",
    description: "Change a thread's title, description, metadata or status (active, archived, completed); the rest is kept.",
    route: "PATCH /api/v1/threads/:id",
    annotations: CHANGES,
  },
};

export interface McpTool extends ToolDefinition {
  name: ToolName;
  inputSchema: InputSchema;
  handler: RestHandler;
  /** The route's path names the record (`/:id`): the `id` argument goes there. */
  takesId: boolean;
  /** Where the other arguments go: the body of a POST or PATCH, the query of a GET or DELETE. */
  argumentsIn: "body" | "query";
}

/** Every tool, in the order they are listed, each with the handler of its REST route. */
export function mcpTools(router: Router, limits: Limits): McpTool[] {
  const schemas = inputSchemas(limits);
  return (Object.keys(DEFINITIONS) as ToolName[]).map((name) => {
    const definition = DEFINITIONS[name];
    const [method = "", pattern = ""] = definition.route.split(" ");
    const handler = router.handler(method, pattern);
    if (!handler) throw new Error(`MCP tool ${name} runs ${definition.route}, which the router does not have`);
    return {
      ...definition,
      name,
      inputSchema: schemas[name],
      handler,
      takesId: pattern.endsWith("/:id"),
      argumentsIn: method === "POST" || method === "PATCH" ? "body" : "query",
    };
  });
}

/**
 * Runs `tool` as its REST route runs a request that carries these arguments, and resolves with that route's
 * answer; a refusal is the route's AppError.
 */
export async function runTool(
  tool: McpTool,
  args: Readonly<Record<string, unknown>>,
  request: Pick<RestRequest, "req" | "context" | "schema">,
): Promise<unknown> {
  for (const name of Object.keys(args)) {
    if (!Object.hasOwn(tool.inputSchema.properties, name)) throw invalid(name, `is not an argument of ${tool.name}`);
  }
  const { id, ...rest } = args;
  const params: Record<string, string> = {};
  if (tool.takesId) {
    // a path segment is text: what REST's router would hand on
    if (typeof id !== "string") throw invalid("id", id === undefined ? "is required" : "must be a string");
    params.id = id;
  }
  const response = await tool.handler({
    ...request,
    params,
    query: new ToolArguments(tool.argumentsIn === "query" ? rest : {}),
    body: async () => rest,
  });
  return response.body;
}
