// npm run mcp -- --key <key>   (or MEMORY_API_KEY=<key> npm run mcp)
// An MCP server on stdin and stdout for desktop clients (README, "MCP"): nothing but MCP messages on stdout.
import { once } from "node:events";
import { parseArgs } from "node:util";
import { createApp } from "../app.ts";
import { loadConfig, type Config } from "../config.ts";
import { NoServerError, remoteMcpUrl } from "../control/client.ts";
import { createLogger, type Logger } from "../logger.ts";
import { localMcpUrl } from "../mcp/endpoint.ts";
import { relayStdio } from "../mcp/stdio-relay.ts";
import { runCli, UsageError } from "./run.ts";

const USAGE = "usage: npm run mcp -- --key <API key>   (or the key in MEMORY_API_KEY)";

/**
 * The /mcp to relay to: on the embedded database, the one of the server that holds it (asked through its control
 * socket, as the keys CLI asks); otherwise (PostgreSQL, or no server running) the service started here, listening
 * on loopback only, which then holds the embedded database and answers the keys CLI in turn.
 */
async function endpoint(config: Config, logger: Logger): Promise<{ url: string; close(): Promise<void> }> {
  if (!config.databaseUrl && !config.dataDir.startsWith("memory://")) {
    try {
      return { url: await remoteMcpUrl(config.dataDir), close: async () => {} };
    } catch (error) {
      if (!(error instanceof NoServerError)) throw error;
    }
  }
  const app = await createApp({ ...config, host: "127.0.0.1", port: 0 }, logger);
  return { url: localMcpUrl(await app.listen()), close: () => app.close() };
}

await runCli(USAGE, async () => {
  const { values } = parseArgs({ options: { key: { type: "string" } } });
  const key = values.key ?? process.env.MEMORY_API_KEY;
  if (!key) throw new UsageError("No API key: give --key, or set MEMORY_API_KEY.");
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 2);
  const target = await endpoint(config, logger);
  try {
    // a client ends the server by closing its stdin, or by a signal when that is not enough
    await Promise.race([relayStdio(target.url, key, logger), once(process, "SIGTERM"), once(process, "SIGINT")]);
  } finally {
    await target.close();
  }
});
// the HTTP client's idle connections would keep the process a few seconds more
process.exit();
