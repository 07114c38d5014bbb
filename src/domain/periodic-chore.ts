import type { Logger } from "../logger.ts";

/** What a chore's log lines say: what its count counts, and what could not be done. */
export interface ChoreMessages {
  done: string;
  failed: string;
}

/**
 * Runs a chore now and then every `everyMs` until stopped, one run at a time, logging how many things it did (when
 * any) or that it failed (it is tried again at the next tick). The history purge and the expiry sweeper are such
 * chores; a timer of their own each would restate this.
 */
export class PeriodicChore {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly chore: () => Promise<number>,
    private readonly everyMs: number,
    private readonly logger: Logger,
    private readonly messages: ChoreMessages,
  ) {}

  /** Runs the chore now, or joins the run in progress; answers its count. */
  run(): Promise<number> {
    this.running ??= this.chore().finally(() => (this.running = undefined));
    return this.running;
  }

  start(): void {
    const tick = () =>
      this.run().then(
        (count) => count > 0 && this.logger.info({ count }, this.messages.done),
        (error: unknown) => this.logger.warn({ err: error }, this.messages.failed),
      );
    void tick();
    this.timer = setInterval(tick, this.everyMs).unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => {});
  }
}
