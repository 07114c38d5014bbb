import { createApp, type App } from "../app.ts";
import type { Config } from "../config.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { remoteMcpUrl, ServerLostError } from "../control/client.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { localMcpUrl } from "../mcp/endpoint.ts";
import type { RelayTarget } from "../mcp/stdio-relay.ts";
import { HOLDER_WAIT_MS, viaHolderOr } from "./run.ts";

/**
 * A holder that answers without an address to send to (starting, or stopping: a server's HTTP listener closes
 * before its control socket and its lock), or that went away as it answered. Nothing was sent to it: asked again
 * shortly, until it listens or lets the directory go. Each call made as a server stopped was answered with this
 * error, never carried out (outside probe).
 */
const holderBetweenStates = (error: unknown): boolean =>
  (error instanceof AppError && error.code === "SERVICE_UNAVAILABLE") || error instanceof ServerLostError;

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
  /** Until when, after handing the directory over, the service is not started here again: the server takes it. */
  private handedOverUntil = 0;

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
    const deadline = Date.now() + HOLDER_WAIT_MS;
    for (;;) {
      try {
        return await viaHolderOr(() => remoteMcpUrl(this.config.dataDir), () => this.startUnlessHandedOver());
      } catch (error) {
        if (!holderBetweenStates(error) || Date.now() > deadline) throw error;
      }
      await sleep(100);
    }
  }

  private async start(): Promise<string> {
    if (!this.app) {
      const handover = () => void this.handOver();
      this.app = await createApp({ ...this.config, host: "127.0.0.1", port: 0 }, this.logger, { handover });
      this.logger.info("the MCP relay holds the memory service in its own process");
    }
    return localMcpUrl(await this.app.listen());
  }

  private startUnlessHandedOver(): Promise<string> {
    if (Date.now() < this.handedOverUntil) {
      return Promise.reject(new AppError("SERVICE_UNAVAILABLE", "the data directory was handed over to a server that starts"));
    }
    return this.start();
  }

  /** A server that starts asked for the directory: the service here stops (its calls finish), and calls go there. */
  private async handOver(): Promise<void> {
    const app = this.app;
    if (!app) return;
    this.logger.info("a server starts on the data directory: the MCP relay hands the memory service over to it");
    this.app = undefined;
    this.finding = undefined;
    this.foundUrl = undefined;
    this.handedOverUntil = Date.now() + HOLDER_WAIT_MS;
    await app.close();
  }
}
