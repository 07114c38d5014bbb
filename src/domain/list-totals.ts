const MAX_ENTRIES = 10_000;

/** A list's total, and when the first memory it counted expires (the total is stale from then on). */
export interface Counted {
  total: number;
  nextExpiry: Date | null;
}

/**
 * The totals of memory lists, kept between a user's writes. Counting is the dearest part of a list on the
 * embedded database (a full index scan per request); a cached total stays exact because every write to a
 * user's memories passes through `changed`, and only this process writes (see Database.singleWriter), until the
 * first of the memories it counted expires: a memory leaves every list at its expiry, with no write.
 */
export class ListTotals {
  private readonly generations = new Map<string, number>();
  private readonly totals = new Map<string, { generation: number; total: number; until: number }>();
  private readonly watchers: ((userId: string, memoryIds: readonly string[]) => void)[] = [];

  constructor(private readonly enabled: boolean) {}

  /** Call after any write to `userId`'s memories has committed, with the memories it created, changed or deleted. */
  changed(userId: string, memoryIds: readonly string[]): void {
    this.generations.set(userId, this.generation(userId) + 1);
    for (const watcher of this.watchers) watcher(userId, memoryIds);
  }

  /** Tells `watcher` of every write `changed` hears of: other copies of a user's memories keep in step by it. */
  watch(watcher: (userId: string, memoryIds: readonly string[]) => void): void {
    this.watchers.push(watcher);
  }

  /** Counts this process' writes to the user's memories: what was counted at another generation is stale. */
  generation(userId: string): number {
    return this.generations.get(userId) ?? 0;
  }

  async total(userId: string, listKey: string, count: () => Promise<Counted>): Promise<number> {
    if (!this.enabled) return (await count()).total;
    const generation = this.generations.get(userId) ?? 0;
    const key = `${userId} ${listKey}`;
    const cached = this.totals.get(key);
    if (cached?.generation === generation && Date.now() < cached.until) return cached.total;
    const { total, nextExpiry } = await count();
    // a write during the count bumped the generation: then this total may be stale, so keep it out
    if ((this.generations.get(userId) ?? 0) === generation) {
      if (this.totals.size >= MAX_ENTRIES) this.totals.clear();
      this.totals.set(key, { generation, total, until: nextExpiry?.getTime() ?? Infinity });
    }
    return total;
  }
}
