/**
 * Background work run when woken (after a commit that gave it something to do) and every `pollMs` besides (for
 * what other instances did, or what a crash left behind): one run at a time, and a wake during a run asks for
 * one more run after it, so that nothing woken for is left waiting. `chore`, when given a period, runs every `choreMs`.
 */
export abstract class WakeableLoop {
  private running: Promise<void> | undefined;
  private pending = false;
  private timers: NodeJS.Timeout[] = [];
  protected stopped = false;

  constructor(
    private readonly pollMs: number,
    private readonly choreMs?: number,
  ) {}

  /** Must not throw: a failure is the subclass's to log. */
  protected abstract work(): Promise<void>;
  /** Periodic housekeeping, every `choreMs` when that is given. Must not throw either. */
  protected async chore(): Promise<void> {}

  start(): void {
    this.timers = [setInterval(() => this.wake(), this.pollMs).unref()];
    if (this.choreMs !== undefined) this.timers.push(setInterval(() => void this.chore(), this.choreMs).unref());
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    this.running = this.work().finally(() => {
      this.running = undefined;
      if (this.pending) {
        this.pending = false;
        this.wake();
      }
    });
  }

  /** No more runs; the one under way finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.running;
  }
}
