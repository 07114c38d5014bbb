/**
 * The vectors of the queries embedded most recently, and those being embedded: assistants repeat their questions
 * (a turn's recall and search alike, a client's retry), and each embedding costs an encoder thread's inference
 * (about 10 ms) or a request to a paid endpoint. Keyed by whoever asked as well as the text: a hit answers at once,
 * so a key shared between users would tell one user another's recent questions by the time it takes.
 * Bounded by the floats it holds, whatever the embedder's dimensions; the least recently used go first.
 */
export class RecentVectors {
  private readonly done = new Map<string, Float32Array>();
  private readonly pending = new Map<string, Promise<Float32Array>>();
  private floats = 0;

  constructor(private readonly maxFloats: number) {}

  /** `text`'s vector for `asker`: remembered, joined while being embedded, or made by `embed` (failures are not kept). */
  of(asker: string, text: string, embed: (text: string) => Promise<Float32Array>): Promise<Float32Array> {
    const key = `${asker}\u0000${text}`;
    const known = this.done.get(key);
    if (known) {
      this.done.delete(key);
      this.done.set(key, known);
      return Promise.resolve(known);
    }
    const pending = this.pending.get(key);
    if (pending) return pending;
    const made = embed(text);
    this.pending.set(key, made);
    made.then(
      (vector) => {
        this.pending.delete(key);
        this.remember(key, vector);
      },
      () => this.pending.delete(key),
    );
    return made;
  }

  private remember(key: string, vector: Float32Array): void {
    this.done.set(key, vector);
    this.floats += vector.length;
    for (const [oldest, old] of this.done) {
      if (this.floats <= this.maxFloats || oldest === key) break;
      this.done.delete(oldest);
      this.floats -= old.length;
    }
  }
}
