/**
 * One term's postings in a user's copy of their terms (user-terms.ts): the slots of the memories holding it and
 * its tf in each, in typed arrays that grow by doubling. BM25 reads hundreds of thousands of them a recall at
 * 100 000 memories; read from typed arrays they cost a fraction of what numbers packing both did.
 */
export class PostingList {
  slots = new Int32Array(4);
  /** tf is a smallint */
  tfs = new Int16Array(4);
  length = 0;

  add(slot: number, tf: number): void {
    if (this.length === this.slots.length) {
      const slots = new Int32Array(this.length * 2);
      slots.set(this.slots);
      this.slots = slots;
      const tfs = new Int16Array(this.length * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.slots[this.length] = slot;
    this.tfs[this.length] = tf;
    this.length++;
  }

  /** Takes out the slot's posting: the last takes its place, as order within a list does not matter. */
  remove(slot: number): void {
    const at = this.slots.subarray(0, this.length).indexOf(slot);
    this.length--;
    this.slots[at] = this.slots[this.length]!;
    this.tfs[at] = this.tfs[this.length]!;
  }
}
