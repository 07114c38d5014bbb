import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { baseEnv, root } from "../../scripts/lib/server-process.ts";
import { scriptCommand } from "./child-processes.ts";

/** Opens an MCP client that acts with `key`, over the transport under test. */
export type McpConnect = (key: string) => Promise<Client>;

const newClient = () => new Client({ name: "memory-service-tests", version: "1.0.0" });

/** The SDK's Streamable HTTP client against `/mcp` of the server at `url`, the key as a Bearer token. */
export const httpConnect =
  (url: string): McpConnect =>
  async (key) => {
    const client = newClient();
    const headers = { authorization: `Bearer ${key}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    return client;
  };

export interface StdioConnection {
  /** Gives the key as `--key`. */
  connect: McpConnect;
  /** Gives the key in MEMORY_API_KEY. */
  connectWithEnvKey: McpConnect;
  /** What the client could not read as an MCP message on the server's stdout (which should carry nothing else). */
  readonly unreadable: Error[];
  /** Everything the servers wrote on stderr, for failure messages. */
  readonly stderr: string[];
}

/** The SDK's stdio client spawning `npm run mcp`'s command as a desktop client would, with `env` (the database). */
export function stdioConnection(env: () => Record<string, string>): StdioConnection {
  const unreadable: Error[] = [];
  const stderr: string[] = [];
  const spawn = async (args: string[], extra: Record<string, string>) => {
    const settings = Object.entries({ ...baseEnv(), ...env(), ...extra });
    const childEnv = Object.fromEntries(settings.filter((entry): entry is [string, string] => entry[1] !== undefined));
    const transport = new StdioClientTransport({ ...scriptCommand("mcp", args), cwd: root, env: childEnv, stderr: "pipe" });
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = newClient();
    client.onerror = (error) => unreadable.push(error);
    await client.connect(transport);
    return client;
  };
  return {
    unreadable,
    stderr,
    connect: (key) => spawn(["--key", key], {}),
    connectWithEnvKey: (key) => spawn([], { MEMORY_API_KEY: key }),
  };
}

/** A tool's answer as the tests read it: its text parsed as JSON, and whether it is a tool error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; body: any }> {
  const result = await client.callTool({ name, arguments: args });
  const [first] = result.content as { type: string; text: string }[];
  return { isError: result.isError === true, body: JSON.parse(first!.text) };
}
