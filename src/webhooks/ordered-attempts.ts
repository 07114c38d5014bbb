/**
 * Attempts that must not overtake one another: each is given the keys it is ordered by (an endpoint and an object,
 * say) and begins once every earlier attempt under any of its keys has ended, while attempts sharing no key run
 * at once. Chained by promises, in the order `run` is called: the caller calls it in commit order.
 */
export class OrderedAttempts {
  /** The last attempt begun under each key, settled (never rejected) once it has ended. */
  private readonly last = new Map<string, Promise<void>>();

  run<T>(keys: readonly string[], attempt: () => Promise<T>): Promise<T> {
    const before = keys.flatMap((key) => this.last.get(key) ?? []);
    const running = before.length ? Promise.all(before).then(attempt) : attempt();
    const ended = running.then(
      () => {},
      () => {},
    );
    for (const key of keys) this.last.set(key, ended);
    void ended.then(() => {
      for (const key of keys) if (this.last.get(key) === ended) this.last.delete(key);
    });
    return running;
  }

  /** Keys with an attempt under way or waiting: none once every attempt has ended. */
  get size(): number {
    return this.last.size;
  }
}
