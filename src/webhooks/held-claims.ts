/**
 * Outbox events claimed for their deliveries' first attempts, held in this process' memory instead of in their
 * rows (events.claimed_until). On the embedded database the data directory is locked to one process, so no other
 * instance can take an event, and writing each claim was about a fifth of the database thread's cost of a relay
 * round (bench/README.md, "Events"). A claim lapses after its lease as a row's does, and its event is then taken
 * again (its attempts made again, under the same ids); an event taken once is not published again. The claims
 * go with the process: after a crash, the events still in the outbox are all taken again, published included.
 */
export class HeldClaims {
  // each claimed event's seq, and when its claim lapses (performance.now())
  private readonly claims = new Map<string, number>();

  /** The events claimed now: not to be taken. */
  live(): string[] {
    const now = performance.now();
    return [...this.claims].flatMap(([seq, until]) => (until > now ? [seq] : []));
  }

  /** Whether the event was taken before (and so published). */
  wasTaken(seq: string): boolean {
    return this.claims.has(seq);
  }

  claim(seqs: readonly string[], leaseMs: number): void {
    const until = performance.now() + leaseMs;
    for (const seq of seqs) this.claims.set(seq, until);
  }

  /** Their events have left the outbox. */
  release(seqs: readonly string[]): void {
    for (const seq of seqs) this.claims.delete(seq);
  }
}
