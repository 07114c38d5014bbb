// npm run mcp -- --key <key>   (or MEMORY_API_KEY=<key> npm run mcp)
// An MCP server on stdin and stdout for desktop clients (README, "MCP"): nothing but MCP messages on stdout.
import { once } from "node:events";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { createLogger } from "../logger.ts";
import { relayStdio } from "../mcp/stdio-relay.ts";
import { McpService } from "./mcp-service.ts";
import { runCli, UsageError } from "./run.ts";

const USAGE = "usage: npm run mcp -- --key <API key>   (or the key in MEMORY_API_KEY)";

await runCli(USAGE, async () => {
  const { values } = parseArgs({ options: { key: { type: "string" } } });
  const key = values.key ?? process.env.MEMORY_API_KEY;
  if (!key) throw new UsageError("No API key: give --key, or set MEMORY_API_KEY.");
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 2);
  const service = new McpService(config, logger);
  try {
    // found before the first message, so that a database that cannot be opened ends the command with its reason
    await service.url();
    // a client ends the server by closing its stdin, or by a signal when that is not enough
    await Promise.race([relayStdio(service, key, logger), once(process, "SIGTERM"), once(process, "SIGINT")]);
  } finally {
    await service.close();
  }
});
// the HTTP client's idle connections would keep the process a few seconds more
process.exit();
