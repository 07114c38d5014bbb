import { K1, SCORED, type Scores, type TermSource, type WeightedTerm, type WordMatches } from "./lexical.ts";
import { nthLargest } from "./nth-largest.ts";
import { PostingList } from "./posting-list.ts";
import { tokenize } from "../text/tokenize.ts";
import { idf, type CorpusStats } from "./term-stats.ts";

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

// An entry of a memory's own list is one number: term number·TF_SPAN + tf. tf is a smallint, so it fits below
// 2^15; an array of such numbers is stored unboxed, 8 bytes an entry.
const TF_SPAN = 32_768;
const NO_THREAD = -1;

/**
 * One user's memory_terms, and of each memory what recall's BM25 filters on, held in this process: an inverted
 * index (term → memories) for scoring, each memory's own terms (for feedback, and to take it out again), and each
 * thread's live memories in id order (for thread context). Answers as SqlTerms does, without a statement; its
 * keys are slots, a memory's place in the arrays below.
 */
export class UserTerms implements TermSource<number> {
  private readonly slotOf = new Map<string, number>();
  /** slot → id; a slot taken out keeps its id until another memory takes it, so that a search's keys still name theirs */
  private readonly ids: string[] = [];
  /** slot → thread number, or NO_THREAD: BM25 within a thread compares numbers, not uuids, for every posting */
  private readonly threads: number[] = [];
  private readonly archived: boolean[] = [];
  /** slot → term number·TF_SPAN + tf */
  private readonly own: number[][] = [];
  private readonly freeSlots: number[] = [];
  /** searches holding keys (hold), and the slots freed meanwhile: reused once none does */
  private holds = 0;
  private heldSlots: number[] = [];
  private readonly termNumbers = new Map<string, number>();
  private readonly termNames: string[] = [];
  private readonly postings: PostingList[] = [];
  private readonly threadNumbers = new Map<string, number>();
  /** thread number → the thread's live memories */
  private readonly threadOrder: (ThreadOrder | undefined)[] = [];
  /** scratch of bm25: slot → score, and the slots scored so far (a typed array: pushing to an array cost 7 times as much) */
  private scores = new Float64Array(0);
  /** The memories that expire, by their expiry in ms, soonest on top (an entry whose memory changed since is skipped). */
  private readonly expiring = new ExpiryHeap();
  private readonly expiresAt = new Map<string, number>();
  private touched = new Int32Array(0);
  /** How many postings the copy holds: what its size in memory goes by (term-index.ts). */
  postingCount = 0;

  /** Puts a memory in, or its current state in place of what the copy held. */
  put(memory: MemoryTerms): void {
    this.remove(memory.id);
    const slot = this.freeSlots.pop() ?? this.ids.length;
    const thread = memory.threadId === null ? NO_THREAD : this.threadNumber(memory.threadId);
    this.slotOf.set(memory.id, slot);
    this.ids[slot] = memory.id;
    this.threads[slot] = thread;
    this.archived[slot] = memory.isArchived;
    const own: number[] = [];
    memory.terms.forEach((term, i) => {
      const tf = memory.tfs[i]!;
      let number = this.termNumbers.get(term);
      if (number === undefined) {
        number = this.termNames.push(term) - 1;
        this.termNumbers.set(term, number);
        this.postings.push(new PostingList());
      }
      own.push(number * TF_SPAN + tf);
      this.postings[number]!.add(slot, tf);
    });
    this.own[slot] = own;
    this.postingCount += own.length;
    if (thread !== NO_THREAD && !memory.isArchived) (this.threadOrder[thread] ??= new ThreadOrder(this.ids)).insert(slot);
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
    for (const entry of this.own[slot]!) this.postings[Math.floor(entry / TF_SPAN)]!.remove(slot);
    this.postingCount -= this.own[slot]!.length;
    const thread = this.threads[slot]!;
    if (thread !== NO_THREAD && !this.archived[slot]) this.threadOrder[thread]!.delete(slot);
    this.slotOf.delete(id);
    this.expiresAt.delete(id);
    this.own[slot] = [];
    this.threads[slot] = NO_THREAD;
    (this.holds > 0 ? this.heldSlots : this.freeSlots).push(slot);
  }

  hold(): () => void {
    this.holds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.holds === 0 && this.heldSlots.length > 0) {
        this.freeSlots.push(...this.heldSlots);
        this.heldSlots = [];
      }
    };
  }

  idOf(slot: number): string {
    return this.ids[slot]!;
  }

  async stats(terms: readonly string[]): Promise<CorpusStats> {
    return this.statsOf(terms);
  }

  async bm25(terms: readonly WeightedTerm[], threadId?: string): Promise<Scores<number>> {
    const thread = threadId === undefined ? undefined : this.threadNumbers.get(threadId.toLowerCase());
    if (threadId !== undefined && thread === undefined) return new Map();
    const count = this.score(terms, thread);
    const scored = this.touched.subarray(0, count);
    const kept = count > SCORED ? this.best(scored, SCORED) : scored;
    const result: Scores<number> = new Map();
    for (const slot of kept) result.set(slot, this.scores[slot]!);
    this.clear(count);
    return result;
  }

  /**
   * Search's plain BM25 (searchWords in lexical.ts) over the copy, ranked as its statement ranks: the best
   * `limit` of all the user's memories by score, equal scores by id, archived ones dropped after the cut.
   */
  searchWords(query: string, limit: number): WordMatches {
    const words = [...new Set(tokenize(query))];
    const stats = this.statsOf(words);
    const terms = words.filter((term) => stats.df.get(term)! > 0).map((term) => ({ term, weight: idf(stats, term) }));
    const weight = words.reduce((sum, term) => sum + idf(stats, term), 0);
    const count = this.score(terms);
    const scores = this.scores;
    let scored = Array.from(this.touched.subarray(0, count));
    if (count > limit) {
      const threshold = nthLargest(Float64Array.from(scored, (slot) => scores[slot]!), limit);
      scored = scored.filter((slot) => scores[slot]! >= threshold);
    }
    const ids = this.ids;
    const best = scored.sort((a, b) => scores[b]! - scores[a]! || (ids[a]! < ids[b]! ? -1 : 1)).slice(0, limit);
    const hits = best.filter((slot) => !this.archived[slot]).map((slot) => ({ id: ids[slot]!, score: scores[slot]! }));
    this.clear(count);
    return { hits, weight };
  }

  async termCounts(slots: readonly number[], known: readonly string[]): Promise<{ term: string; tf: number }[]> {
    const skip = new Set(known);
    const counts = new Map<string, number>();
    for (const slot of slots) {
      if (this.archived[slot]) continue;
      for (const entry of this.own[slot]!) {
        const term = this.termNames[Math.floor(entry / TF_SPAN)]!;
        if (!skip.has(term)) counts.set(term, (counts.get(term) ?? 0) + (entry % TF_SPAN));
      }
    }
    return [...counts].map(([term, tf]) => ({ term, tf }));
  }

  async nextInThread(slots: readonly number[]): Promise<{ from: number; to: number }[]> {
    const pairs: { from: number; to: number }[] = [];
    for (const slot of slots) {
      if (this.threads[slot] === NO_THREAD || this.archived[slot]) continue;
      const next = this.threadOrder[this.threads[slot]!]!.next(slot);
      if (next !== undefined) pairs.push({ from: slot, to: next });
    }
    return pairs;
  }

  private statsOf(terms: readonly string[]): CorpusStats {
    const df = new Map<string, number>();
    for (const term of terms) df.set(term, this.postingsOf(term)?.length ?? 0);
    return { n: this.slotOf.size, df };
  }

  /**
   * Sums the terms' scores into the scratch, within a thread's live memories when given; returns how many slots
   * it scored (the first `count` of `touched`), which the caller reads and then clears.
   */
  private score(terms: readonly WeightedTerm[], thread?: number): number {
    if (this.scores.length < this.ids.length) {
      this.scores = new Float64Array(this.ids.length * 2);
      this.touched = new Int32Array(this.ids.length * 2);
    }
    const { scores, touched, threads, archived } = this;
    const passes = thread === undefined ? undefined : (slot: number) => threads[slot] === thread && !archived[slot];
    let count = 0;
    // term by term, so that each memory's sum adds its terms in the query's order, as the statement does
    for (const { term, weight } of terms) {
      const postings = this.postingsOf(term);
      if (!postings) continue;
      count = accumulate(postings, weight, scores, touched, count, passes);
    }
    return count;
  }

  private clear(count: number): void {
    for (let i = 0; i < count; i++) this.scores[this.touched[i]!] = 0;
  }

  private postingsOf(term: string): PostingList | undefined {
    const number = this.termNumbers.get(term);
    return number === undefined ? undefined : this.postings[number];
  }

  private threadNumber(threadId: string): number {
    let number = this.threadNumbers.get(threadId);
    if (number === undefined) this.threadNumbers.set(threadId, (number = this.threadNumbers.size));
    return number;
  }

  /** The `n` best of the scored slots; of those tied at the cut, any (the statement's LIMIT takes any too). */
  private best(touched: Int32Array, n: number): Int32Array {
    const scores = this.scores;
    const values = new Float64Array(touched.length);
    for (let i = 0; i < touched.length; i++) values[i] = scores[touched[i]!]!;
    const threshold = nthLargest(values, n);
    const kept = new Int32Array(n);
    let count = 0;
    for (let i = 0; i < touched.length; i++) if (scores[touched[i]!]! > threshold) kept[count++] = touched[i]!;
    for (let i = 0; count < n; i++) if (scores[touched[i]!] === threshold) kept[count++] = touched[i]!;
    return kept;
  }
}

// The loops of bm25 in functions of their own: within bm25, called a few times a recall, V8 compiled them anew
// (on-stack replacement) at every call and threw the code away again, at several times the cost of the loop.

/**
 * Adds a term's scores into `scores` for the slots that pass, noting in `touched` from `count` on those scored
 * for the first time; returns the new count.
 */
function accumulate(
  postings: PostingList,
  weight: number,
  scores: Float64Array,
  touched: Int32Array,
  count: number,
  passes?: (slot: number) => boolean,
): number {
  const { slots, tfs, length } = postings;
  for (let i = 0; i < length; i++) {
    const slot = slots[i]!;
    if (passes && !passes(slot)) continue;
    const tf = tfs[i]!;
    if (scores[slot] === 0) touched[count++] = slot;
    scores[slot]! += (weight * tf * (K1 + 1)) / (tf + K1);
  }
  return count;
}

/**
 * A thread's live memories (slots), ascending by id as PostgreSQL orders uuids; each one's place, once asked,
 * kept until a change.
 */
class ThreadOrder {
  private readonly slots: number[] = [];
  private places?: Map<number, number>;

  /** `ids`: the copy's slot → id */
  constructor(private readonly ids: readonly string[]) {}

  insert(slot: number): void {
    this.slots.splice(this.after(this.ids[slot]!), 0, slot);
    this.places = undefined;
  }

  /** Takes the slot out, while it still holds its memory's id. */
  delete(slot: number): void {
    this.slots.splice(this.after(this.ids[slot]!) - 1, 1);
    this.places = undefined;
  }

  /** The slot of the memory after this one, which the thread holds. */
  next(slot: number): number | undefined {
    // by a map rather than a binary search: uuids of memories made together share most of their characters
    this.places ??= new Map(this.slots.map((each, i) => [each, i]));
    return this.slots[this.places.get(slot)! + 1];
  }

  /** The position of the first slot whose id is above `id`. */
  private after(id: string): number {
    let low = 0;
    let high = this.slots.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.ids[this.slots[middle]!]! <= id) low = middle + 1;
      else high = middle;
    }
    return low;
  }
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
