import { Worker } from "node:worker_threads";
import type { EmbedPriority } from "./embedder.ts";
import { THREAD_YOUNG_GENERATION_MB } from "../threads/module-thread.ts";

/** What the pool sends a thread (encoder-worker.mjs). */
interface EncodeRequest {
  id: number;
  texts: string[];
}

/** What a thread answers: once "ready", then one message for each request. */
type EncoderMessage =
  | { kind: "ready"; dimensions: number }
  | { kind: "vectors"; id: number; flat: Float32Array }
  | { kind: "failed"; id: number; message: string };

/** Texts of one caller, or a slice of them, waiting for a thread. */
interface Piece {
  texts: string[];
  priority: EmbedPriority;
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
  /** Set once a batch holding it has failed: it is tried once more, then the caller gets the error. */
  retried?: boolean;
}

interface Thread {
  worker: Worker;
  ready: Promise<number>;
  /** True once the thread has loaded the model: only then does it get batches. */
  loaded: boolean;
  /** The pieces of the batch it is embedding, in order; empty when idle. */
  batch: Piece[];
  /** Set while it is idle: stops it when it fires (or, for the first thread, renews it once worn). */
  retiring?: NodeJS.Timeout;
  /** Texts embedded since it loaded the model. */
  embedded: number;
}

export interface EncoderPoolOptions {
  /** The most threads; the pool starts with one and adds the others while work waits for a thread. */
  threads: number;
  /** How long a thread beyond the first may sit idle before it stops, giving back its memory. */
  idleMs: number;
  /**
   * Texts after which the first thread, once idle for `idleMs`, hands over to a fresh one: the memory a thread's
   * inference grew to (its WebAssembly memory, its heap) is never given back while it runs. Unset, it stays.
   */
  renewAfter?: number;
  /** The most texts a thread embeds at once, for each priority; a batch gathers pieces of several callers. */
  batchSize: Record<EmbedPriority, number>;
}

const WORKER_URL = new URL("./encoder-worker.mjs", import.meta.url);

/**
 * Worker threads that run the sentence encoder, so that inference never blocks the event loop. Queries
 * ("interactive") go before background work, and the texts waiting when a thread frees up are embedded together
 * (in a batch of 8 or more a text costs about 10 ms, alone about 14): batching across requests. Background
 * batches are kept small, as a query that finds every thread busy waits for one of them to finish.
 *
 * Each thread holds its own copy of the model and the memory inference grew to (about 150 MB), so the pool is
 * elastic: one thread from the start, more while work waits for a thread (a bulk import, a reindex), each
 * stopping again after `idleMs` without work. The first stays, but after `renewAfter` texts it hands over to a
 * fresh thread once idle: a thread's inference memory only grows.
 *
 * Written here rather than taken from a pool library because the two priorities and the gathering of several
 * callers' texts into one batch are the point, and a generic pool hands out one task at a time.
 */
export class EncoderPool {
  private readonly threads: Thread[] = [];
  /** A fresh thread loading the model to take the first one's place. */
  private successor?: Thread;
  private readonly waiting: Record<EmbedPriority, Piece[]> = { interactive: [], background: [] };
  private nextId = 0;
  private closed = false;
  /** The vectors' size, once the first thread has loaded the model. */
  readonly dimensions: Promise<number>;

  constructor(private readonly options: EncoderPoolOptions) {
    const first = this.spawn();
    this.threads.push(first);
    this.dimensions = first.ready;
  }

  /** Threads running now (loaded or loading). */
  get size(): number {
    return this.threads.length;
  }

  /** The ids of the threads running now, first first. */
  get threadIds(): number[] {
    return this.threads.map((thread) => thread.worker.threadId);
  }

  embed(texts: readonly string[], priority: EmbedPriority): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error("the sentence encoder is closed"));
    if (texts.length === 0) return Promise.resolve([]);
    const size = this.options.batchSize[priority];
    const parts: Promise<Float32Array[]>[] = [];
    for (let start = 0; start < texts.length; start += size) {
      parts.push(
        new Promise((resolve, reject) => this.waiting[priority].push({ texts: texts.slice(start, start + size), priority, resolve, reject })),
      );
    }
    this.dispatch();
    return Promise.all(parts).then((results) => results.flat());
  }

  async close(): Promise<void> {
    this.closed = true;
    const error = new Error("the sentence encoder was closed");
    for (const queue of Object.values(this.waiting)) queue.splice(0).forEach((piece) => piece.reject(error));
    const threads = this.threads.splice(0);
    if (this.successor) threads.push(this.successor);
    threads.forEach((thread) => clearTimeout(thread.retiring));
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private spawn(): Thread {
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB } });
    worker.unref(); // a forgotten close() must not keep the process alive
    const thread: Thread = { worker, batch: [], loaded: false, ready: Promise.resolve(0), embedded: 0 };
    thread.ready = new Promise<number>((resolve, reject) => {
      worker.on("message", (message: EncoderMessage) => {
        if (message.kind === "ready") {
          thread.loaded = true;
          resolve(message.dimensions);
          this.dispatch();
        } else this.finish(thread, message);
      });
      worker.on("error", (error) => {
        reject(error);
        thread.loaded = false; // it gets no more batches
        this.fail(thread, error);
      });
      worker.on("exit", (code) => {
        const error = new Error(`the sentence encoder thread stopped (exit code ${code})`);
        reject(error);
        thread.loaded = false;
        this.fail(thread, error);
        if (!this.closed) this.replace(thread);
        this.dispatch();
      });
    });
    thread.ready.catch(() => {}); // reported through the pieces it fails and through `dimensions`
    return thread;
  }

  private replace(dead: Thread): void {
    const index = this.threads.indexOf(dead);
    if (index >= 0) this.threads[index] = this.spawn();
  }

  /**
   * Gives every idle, loaded thread a batch: interactive pieces first, then background ones. Work still waiting
   * then starts one more thread (one at a time: loading takes half a second, and the work may be gone by then);
   * threads left idle start their countdown to stopping.
   */
  private dispatch(): void {
    if (this.closed) return;
    for (const thread of this.threads) {
      if (!thread.loaded || thread.batch.length > 0) continue;
      const batch = this.takeBatch();
      if (batch.length === 0) break;
      clearTimeout(thread.retiring);
      thread.retiring = undefined;
      thread.batch = batch;
      thread.worker.postMessage({ id: ++this.nextId, texts: batch.flatMap((piece) => piece.texts) } satisfies EncodeRequest);
    }
    const waiting = this.waiting.interactive.length + this.waiting.background.length > 0;
    if (waiting && this.threads.length < this.options.threads && this.threads.every((thread) => thread.loaded)) {
      this.threads.push(this.spawn());
    }
    this.threads.forEach((thread, index) => {
      const stays = index === 0 && (thread.embedded < (this.options.renewAfter ?? Infinity) || this.successor);
      if (thread.loaded && thread.batch.length === 0 && !thread.retiring && !stays) {
        thread.retiring = setTimeout(() => this.retire(thread), this.options.idleMs);
        thread.retiring.unref();
      }
    });
  }

  private retire(thread: Thread): void {
    thread.retiring = undefined;
    const index = this.threads.indexOf(thread);
    if (index < 0 || thread.batch.length > 0) return; // a busy thread is not idle
    if (index === 0) return this.renew(thread);
    this.threads.splice(index, 1);
    void thread.worker.terminate();
  }

  /**
   * Starts a fresh thread to take the worn first one's place once it has loaded the model (about half a second
   * of a core). The worn one works on until then, and is stopped once its batch, if any, is done.
   */
  private renew(worn: Thread): void {
    const fresh = (this.successor = this.spawn());
    fresh.ready.then(
      () => {
        this.successor = undefined;
        const index = this.threads.indexOf(worn);
        if (this.closed || index < 0) return void fresh.worker.terminate();
        this.threads[index] = fresh;
        if (worn.batch.length === 0) void worn.worker.terminate();
        this.dispatch();
      },
      () => {
        // the model loaded once, so this is rare: the worn thread stays, and is tried again after as much work
        this.successor = undefined;
        worn.embedded = 0;
      },
    );
  }

  private takeBatch(): Piece[] {
    const batch: Piece[] = [];
    let count = 0;
    for (const priority of ["interactive", "background"] as const) {
      const queue = this.waiting[priority];
      const size = this.options.batchSize[priority];
      while (queue.length > 0 && (count === 0 || count + queue[0]!.texts.length <= size)) {
        const piece = queue.shift()!;
        batch.push(piece);
        count += piece.texts.length;
      }
    }
    return batch;
  }

  private finish(thread: Thread, message: Exclude<EncoderMessage, { kind: "ready" }>): void {
    const batch = thread.batch;
    thread.batch = [];
    // a worn thread whose successor took its place while it worked
    if (!this.threads.includes(thread)) void thread.worker.terminate();
    if (message.kind === "failed") {
      this.retryOrReject(batch, new Error(`sentence encoder: ${message.message}`));
    } else {
      const total = batch.reduce((sum, piece) => sum + piece.texts.length, 0);
      thread.embedded += total;
      const dimensions = message.flat.length / total;
      let offset = 0;
      for (const piece of batch) {
        piece.resolve(piece.texts.map(() => message.flat.slice(offset, (offset += dimensions))));
      }
    }
    this.dispatch();
  }

  private fail(thread: Thread, error: Error): void {
    this.retryOrReject(thread.batch.splice(0), error);
  }

  /**
   * The pieces of a batch that failed (its thread died, or inference threw) go back to the front of their queue
   * once, as the failure may be the thread's rather than theirs (a search answered 503 when a thread stopped under
   * it); failing again, they fail their callers. The pool's `dispatch` runs after each failure.
   */
  private retryOrReject(batch: Piece[], error: Error): void {
    const again = batch.filter((piece) => !piece.retried && !this.closed);
    for (const piece of batch) if (!again.includes(piece)) piece.reject(error);
    for (const piece of again.reverse()) {
      piece.retried = true;
      this.waiting[piece.priority].unshift(piece);
    }
  }
}
