import { createApp, type App } from "../app.ts";
import type { Config } from "../config.ts";
import { remoteMcpUrl } from "../control/client.ts";
import type { Logger } from "../logger.ts";
import { localMcpUrl } from "../mcp/endpoint.ts";
import type { RelayTarget } from "../mcp/stdio-relay.ts";
import { viaHolderOr } from "./run.ts";

/**
 * The /mcp a stdio relay sends to, found again whenever it stops answering. On the embedded database, the one of
 * the process that holds it (a server, or another relay that started the service): asked through its control
 * socket; when no process holds it, the service started here, listening on loopback only, which then answers the
 * keys CLI and other relays in turn. So several desktop clients share one data directory, and when the process
 * that held it ends, the next relay to notice takes it over. On PostgreSQL, or in memory, the service started here.
 */
export class McpService implements RelayTarget {
  private finding: Promise<string> | undefined;
  private foundUrl: string | undefined;
  private app: App | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  url(): Promise<string> {
    if (!this.finding) {
      const finding = this.find().then((url) => (this.foundUrl = url));
      this.finding = finding;
      // a search that failed is not kept: the next call looks again
      finding.catch(() => this.finding === finding && (this.finding = undefined));
    }
    return this.finding;
  }

  lost(url: string): void {
    if (this.foundUrl === url) (this.finding = undefined), (this.foundUrl = undefined);
  }

  async close(): Promise<void> {
    await this.app?.close();
  }

  private async find(): Promise<string> {
    const shared = !this.config.databaseUrl && !this.config.dataDir.startsWith("memory://");
    if (this.app || !shared) return this.start();
    return viaHolderOr(() => remoteMcpUrl(this.config.dataDir), () => this.start());
  }

  private async start(): Promise<string> {
    if (!this.app) {
      this.app = await createApp({ ...this.config, host: "127.0.0.1", port: 0 }, this.logger);
      this.logger.info("the MCP relay holds the memory service in its own process");
    }
    return localMcpUrl(await this.app.listen());
  }
}
