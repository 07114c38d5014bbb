/**
 * Background work run when woken (after a commit that gave it something to do) and every `pollMs` besides (for
 * what other instances did, or what a crash left behind): one run at a time, and a wake during a run asks for
 * one more run after it, so that nothing woken for is left waiting. After a run that found several items at
 * once (a sign that they come faster than runs take them), the next one starts no sooner than `gatherMs` after
 * it ended: under a stream of writes each run then takes many at once (on the embedded database every statement
 * saved is one the API's writes do not wait for), while writes one at a time are still taken at once.
 * `chore`, when given a period, runs every `choreMs`.
 */
export abstract class WakeableLoop {
  private running: Promise<void> | undefined;
  private pending = false;
  private gathering: NodeJS.Timeout | undefined;
  private gatherUntil = 0;
  private timers: NodeJS.Timeout[] = [];
  protected stopped = false;

  constructor(
    private readonly pollMs: number,
    private readonly options: { choreMs?: number; gatherMs?: number } = {},
  ) {}

  /** Must not throw: a failure is the subclass's to log. Answers how many items it found. */
  protected abstract work(): Promise<number>;
  /** Periodic housekeeping, every `choreMs` when that is given. Must not throw either. */
  protected async chore(): Promise<void> {}

  start(): void {
    this.timers = [setInterval(() => this.wake(), this.pollMs).unref()];
    const { choreMs } = this.options;
    if (choreMs !== undefined) this.timers.push(setInterval(() => void this.chore(), choreMs).unref());
    this.wake();
  }

  wake(): void {
    if (this.stopped || this.gathering) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    const wait = this.gatherUntil - performance.now();
    if (wait > 0) {
      this.gathering = setTimeout(() => {
        this.gathering = undefined;
        this.wake();
      }, wait);
      return;
    }
    this.running = this.work()
      .then((found) => {
        this.gatherUntil = found > 1 ? performance.now() + (this.options.gatherMs ?? 0) : 0;
      })
      .finally(() => {
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
    clearTimeout(this.gathering);
    await this.running;
  }
}
