/**
 * Outbox events claimed for their deliveries' first attempts, held in this process' memory instead of in their
 * rows (events.claimed_until). On the embedded database the data directory is locked to one process, so no other
 * instance can take an event, and its transactions run one at a time, so an event committed later has a higher
 * seq: every event up to the highest seq taken (`after`) has been taken, and a round reads only the events after
 * it and those whose claim lapsed, however many are held (with a slow endpoint, thousands). A claim lapses after
 * its lease as a row's does, and its event is then taken again (its attempts made again, under the same ids); an
 * event taken once is not published again. The claims go with the process: after a crash, the events still in the
 * outbox are all taken again, published included.
 */
export class HeldClaims {
  // each claimed event's seq, and when its claim lapses (performance.now()): in the order they lapse, every claim
  // being made for `leaseMs` (`took` moves a claim made again to the end)
  private readonly claims = new Map<string, number>();
  private highest = 0n;

  constructor(private readonly leaseMs: number) {}

  /** What the next round takes: the events after `after`, and those of `lapsed`. */
  scope(): { after: string; lapsed: string[] } {
    const now = performance.now();
    const lapsed: string[] = [];
    for (const [seq, until] of this.claims) {
      if (until > now) break;
      lapsed.push(seq);
    }
    return { after: String(this.highest), lapsed };
  }

  /** Whether the event was taken before (and so published). */
  wasTaken(seq: string): boolean {
    return this.claims.has(seq);
  }

  /** A round took the events `taken`, of which it claimed `claimed`; the others left the outbox. */
  took(taken: readonly string[], claimed: readonly string[]): void {
    for (const seq of taken) {
      this.claims.delete(seq);
      if (BigInt(seq) > this.highest) this.highest = BigInt(seq);
    }
    const until = performance.now() + this.leaseMs;
    for (const seq of claimed) this.claims.set(seq, until);
  }

  /** Their events have left the outbox. */
  release(seqs: readonly string[]): void {
    for (const seq of seqs) this.claims.delete(seq);
  }
}
