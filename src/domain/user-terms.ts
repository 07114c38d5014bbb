import { K1, SCORED, type Scores, type TermSource, type WeightedTerm } from "./lexical.ts";
import type { CorpusStats } from "./term-stats.ts";

/** A memory as the copy holds it: its place, and its rows of memory_terms as parallel arrays. */
export interface MemoryTerms {
  id: string;
  threadId: string | null;
  isArchived: boolean;
  /** When it expires (null or absent: never); the copy lets it go then. */
  expiresAt?: Date | null;
  terms: readonly string[];
  tfs: readonly number[];
}

// A posting, and an entry of a memory's own list, is one number: slot (or term number)·TF_SPAN + tf. tf is a
// smallint, so it fits below 2^15; an array of such numbers is stored unboxed, 8 bytes an entry.
const TF_SPAN = 32_768;

/**
 * One user's memory_terms, and of each memory what recall's BM25 filters on, held in this process: an inverted
 * index (term → memories) for scoring, each memory's own terms (for feedback, and to take it out again), and each
 * thread's live memories in id order (for thread context). Answers as SqlTerms does, without a statement.
 */
export class UserTerms implements TermSource {
  private readonly slotOf = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private readonly threads: (string | null)[] = [];
  private readonly archived: boolean[] = [];
  /** slot → term number·TF_SPAN + tf */
  private readonly own: number[][] = [];
  private readonly freeSlots: number[] = [];
  private readonly termNumbers = new Map<string, number>();
  private readonly termNames: string[] = [];
  /** term number → slot·TF_SPAN + tf */
  private readonly postings: number[][] = [];
  /** the live memories of each thread, ascending by id as PostgreSQL orders uuids */
  private readonly threadOrder = new Map<string, string[]>();
  private scores = new Float64Array(0);
  /** The memories that expire, by their expiry in ms, soonest on top (an entry whose memory changed since is skipped). */
  private readonly expiring = new ExpiryHeap();
  private readonly expiresAt = new Map<string, number>();
  /** How many postings the copy holds: what its size in memory goes by (term-index.ts). */
  postingCount = 0;

  /** Puts a memory in, or its current state in place of what the copy held. */
  put(memory: MemoryTerms): void {
    this.remove(memory.id);
    const slot = this.freeSlots.pop() ?? this.ids.length;
    this.slotOf.set(memory.id, slot);
    this.ids[slot] = memory.id;
    this.threads[slot] = memory.threadId;
    this.archived[slot] = memory.isArchived;
    const own: number[] = [];
    memory.terms.forEach((term, i) => {
      const tf = memory.tfs[i]!;
      let number = this.termNumbers.get(term);
      if (number === undefined) {
        number = this.termNames.push(term) - 1;
        this.termNumbers.set(term, number);
        this.postings.push([]);
      }
      own.push(number * TF_SPAN + tf);
      this.postings[number]!.push(slot * TF_SPAN + tf);
    });
    this.own[slot] = own;
    this.postingCount += own.length;
    if (memory.threadId !== null && !memory.isArchived) {
      const order = this.threadOrder.get(memory.threadId) ?? [];
      order.splice(after(order, memory.id), 0, memory.id);
      this.threadOrder.set(memory.threadId, order);
    }
    if (memory.expiresAt != null) {
      const at = new Date(memory.expiresAt).getTime();
      this.expiresAt.set(memory.id, at);
      this.expiring.push({ at, id: memory.id });
    }
  }

  /** Takes out the memories expired by `now`: from their expiry on, no ranking may see them. */
  dropExpired(now: number): void {
    for (let next = this.expiring.popDue(now); next; next = this.expiring.popDue(now)) {
      if (this.expiresAt.get(next.id) === next.at) this.remove(next.id);
    }
  }

  /** Takes a memory out (deleted, or about to be put in again); one the copy does not hold is no error. */
  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    for (const entry of this.own[slot]!) {
      const posting = this.postings[Math.floor(entry / TF_SPAN)]!;
      const at = posting.findIndex((p) => Math.floor(p / TF_SPAN) === slot);
      // order within a posting list does not matter: the last takes the removed one's place
      posting[at] = posting[posting.length - 1]!;
      posting.pop();
    }
    this.postingCount -= this.own[slot]!.length;
    const thread = this.threads[slot];
    if (thread != null && !this.archived[slot]) {
      const order = this.threadOrder.get(thread)!;
      order.splice(after(order, id) - 1, 1);
      if (order.length === 0) this.threadOrder.delete(thread);
    }
    this.slotOf.delete(id);
    this.expiresAt.delete(id);
    this.ids[slot] = undefined;
    this.own[slot] = [];
    this.threads[slot] = null;
    this.freeSlots.push(slot);
  }

  async stats(terms: readonly string[]): Promise<CorpusStats> {
    const df = new Map<string, number>();
    for (const term of terms) df.set(term, this.postingsOf(term).length);
    return { n: this.slotOf.size, df };
  }

  async bm25(terms: readonly WeightedTerm[], threadId?: string): Promise<Scores> {
    if (this.scores.length < this.ids.length) this.scores = new Float64Array(this.ids.length * 2);
    const scores = this.scores;
    const thread = threadId?.toLowerCase();
    const touched: number[] = [];
    // term by term, so that each memory's sum adds its terms in the query's order, as the statement does
    for (const { term, weight } of terms) {
      for (const posting of this.postingsOf(term)) {
        const slot = Math.floor(posting / TF_SPAN);
        if (thread !== undefined && (this.threads[slot] !== thread || this.archived[slot])) continue;
        const tf = posting - slot * TF_SPAN;
        if (scores[slot] === 0) touched.push(slot);
        scores[slot]! += (weight * tf * (K1 + 1)) / (tf + K1);
      }
    }
    const kept = touched.length > SCORED ? this.best(touched, SCORED) : touched;
    const result: Scores = new Map(kept.map((slot) => [this.ids[slot]!, scores[slot]!]));
    for (const slot of touched) scores[slot] = 0;
    return result;
  }

  async termCounts(ids: readonly string[], known: readonly string[]): Promise<{ term: string; tf: number }[]> {
    const skip = new Set(known);
    const counts = new Map<string, number>();
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined || this.archived[slot]) continue;
      for (const entry of this.own[slot]!) {
        const term = this.termNames[Math.floor(entry / TF_SPAN)]!;
        if (!skip.has(term)) counts.set(term, (counts.get(term) ?? 0) + (entry % TF_SPAN));
      }
    }
    return [...counts].map(([term, tf]) => ({ term, tf }));
  }

  async nextInThread(ids: readonly string[]): Promise<{ from: string; to: string }[]> {
    const pairs: { from: string; to: string }[] = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      const thread = slot === undefined ? null : this.threads[slot];
      if (thread == null || this.archived[slot!]) continue;
      const order = this.threadOrder.get(thread)!;
      const next = order[after(order, id)];
      if (next !== undefined) pairs.push({ from: id, to: next });
    }
    return pairs;
  }

  private postingsOf(term: string): readonly number[] {
    const number = this.termNumbers.get(term);
    return number === undefined ? [] : this.postings[number]!;
  }

  /** The `n` best of the scored slots; of those tied at the cut, any (the statement's LIMIT takes any too). */
  private best(touched: number[], n: number): number[] {
    const scores = this.scores;
    const values = new Float64Array(touched.length);
    for (let i = 0; i < touched.length; i++) values[i] = scores[touched[i]!]!;
    const threshold = nthLargest(values, n);
    const kept: number[] = [];
    const tied: number[] = [];
    for (const slot of touched) {
      if (scores[slot]! > threshold) kept.push(slot);
      else if (scores[slot] === threshold) tied.push(slot);
    }
    for (let i = 0; kept.length < n; i++) kept.push(tied[i]!);
    return kept;
  }
}

/** The n-th largest of some values (from 1), by quickselect: a sort of tens of thousands of scores took milliseconds. */
function nthLargest(values: Float64Array, n: number): number {
  const k = values.length - n; // its position, were they sorted ascending
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swapped = values[i]!;
        values[i] = values[j]!;
        values[j] = swapped;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k]!;
  }
  return values[k]!;
}

/** A binary min-heap of expiries: a copy of a user with many expiring memories is built without sorting them. */
class ExpiryHeap {
  private readonly items: { at: number; id: string }[] = [];

  push(item: { at: number; id: string }): void {
    const items = this.items;
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (items[parent]!.at <= item.at) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  /** The soonest entry when it is due by `now`, taken out; else undefined. */
  popDue(now: number): { at: number; id: string } | undefined {
    const items = this.items;
    const top = items[0];
    if (!top || top.at > now) return undefined;
    const last = items.pop()!;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const child = left + 1 < items.length && items[left + 1]!.at < items[left]!.at ? left + 1 : left;
        if (items[child]!.at >= last.at) break;
        items[i] = items[child]!;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

/** The position of the first id above `id` in an ascending list. */
function after(order: readonly string[], id: string): number {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (order[middle]! <= id) low = middle + 1;
    else high = middle;
  }
  return low;
}
