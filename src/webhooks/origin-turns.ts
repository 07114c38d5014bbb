/**
 * Turns at an origin's connections: at most `perOrigin` attempts to one origin at once, the others waiting in the
 * order they came. Kept here rather than left to undici's queue, where a request waits unseen: an attempt's timeout
 * must start when it begins, not while it waits behind the deliveries ahead of it (with a batch of 100 for a
 * receiver taking 3 s an answer, 52 timed out queued, 36 of them never sent), and an attempt that cannot begin in
 * time must be told from one that failed.
 */
export class OriginTurns {
  private readonly origins = new Map<string, { active: number; waiting: (() => void)[] }>();

  constructor(private readonly perOrigin: number) {}

  /**
   * Resolves true once it is the caller's turn at `origin` (it must then `release` it), or false if `deadline`
   * aborts first.
   */
  take(origin: string, deadline: AbortSignal): Promise<boolean> {
    let turns = this.origins.get(origin);
    if (!turns) this.origins.set(origin, (turns = { active: 0, waiting: [] }));
    if (turns.active < this.perOrigin) {
      turns.active++;
      return Promise.resolve(true);
    }
    if (deadline.aborted) return Promise.resolve(false);
    const { waiting } = turns;
    return new Promise((resolve) => {
      const given = () => {
        deadline.removeEventListener("abort", missed);
        resolve(true);
      };
      const missed = () => {
        waiting.splice(waiting.indexOf(given), 1);
        resolve(false);
      };
      waiting.push(given);
      deadline.addEventListener("abort", missed, { once: true });
    });
  }

  /** Ends a turn taken at `origin`: the next waiting attempt takes it. */
  release(origin: string): void {
    const turns = this.origins.get(origin);
    if (!turns) return;
    const next = turns.waiting.shift();
    if (next) return next();
    if (--turns.active === 0) this.origins.delete(origin);
  }
}
