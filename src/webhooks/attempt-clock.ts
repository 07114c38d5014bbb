import { setMaxListeners } from "node:events";

/**
 * The timeout of attempts that begin at about the same time, as one signal: a timer and a listener each cost the
 * sender's thread about 30 µs, which every delivery would pay. Attempts beginning within `windowMs` of each other
 * share a signal that aborts `timeoutMs` after the window's end: each attempt is given at least `timeoutMs`, and at
 * most `windowMs` more.
 */
export class AttemptClock {
  private current: { signal: AbortSignal; until: number } | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly windowMs = 50,
  ) {}

  /** The signal of an attempt beginning now. */
  signal(): AbortSignal {
    const now = performance.now();
    if (!this.current || now >= this.current.until) {
      const signal = AbortSignal.timeout(this.timeoutMs + this.windowMs);
      setMaxListeners(0, signal); // a listener for each of the window's attempts
      this.current = { signal, until: now + this.windowMs };
    }
    return this.current.signal;
  }
}
