import type { Worker } from "node:worker_threads";
import { startModuleThread } from "../threads/module-thread.ts";
import type { Attempt } from "./send.ts";

/** What the thread needs of a delivery to sign and send it. */
export interface Sendable {
  id: string;
  url: string;
  payload: string;
  secret: string;
  previous_secret: string | null;
  /** What it is ordered by (OrderedAttempts): it begins once the earlier attempts under any of these have ended. */
  after?: string[];
}

export interface SenderSettings {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** What the event loop's thread posts to the sender's. */
export interface SendBatch {
  batch: number;
  deliveries: Sendable[];
}

/**
 * A delivery's outcome, and when it came (ms since the epoch): a round's outcomes are recorded together, later.
 * `unsent`: not attempted (its endpoint's connections stayed busy with the deliveries ahead of it), to be made later
 * and not counted as an attempt.
 */
export type Outcome = (Attempt | { ok: false; unsent: true }) & { at: number };

export const isUnsent = (outcome: Outcome): outcome is { ok: false; unsent: true; at: number } => "unsent" in outcome;

/** What the sender's thread answers: an outcome for each delivery, in order. */
export interface SentBatch {
  batch: number;
  outcomes: Outcome[];
}

interface Pending {
  resolve(outcomes: Outcome[]): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

function startWorker(settings: SenderSettings): Worker {
  return startModuleThread(import.meta.url, { source: "./sender-thread.ts", bundled: "./webhook-sender.mjs" }, { workerData: settings });
}

/**
 * Sends webhook deliveries from a thread of their own (sender-thread.ts): their HTTP exchanges, signatures and
 * address checks cost the event loop's thread, which runs the API, nothing but a message each way per batch:
 * with two endpoints, 0.1-0.2 ms less of its CPU time per create (bench:events). The
 * process spends as much or a little more (the messages, a second heap): the API serves more only where the
 * thread finds a core to spare.
 * The thread starts with the first batch; if it dies, the batches it had fail (their deliveries are claimed, so
 * they are made again once the claim lapses, under the same ids) and the next batch starts another.
 */
export class SenderThread {
  private thread: Thread | undefined;
  private nextBatch = 0;

  constructor(private readonly settings: SenderSettings) {}

  /** Each delivery's outcome, in order; rejects only when the thread dies before answering. */
  send(deliveries: Sendable[]): Promise<Outcome[]> {
    if (deliveries.length === 0) return Promise.resolve([]);
    const thread = (this.thread ??= this.start());
    const batch = ++this.nextBatch;
    // only what signing and sending need crosses to the thread (it is copied)
    const message: SendBatch = {
      batch,
      deliveries: deliveries.map(({ id, url, payload, secret, previous_secret, after }) => ({ id, url, payload, secret, previous_secret, after })),
    };
    return new Promise((resolve, reject) => {
      thread.pending.set(batch, { resolve, reject });
      thread.worker.postMessage(message);
    });
  }

  /** Stops the thread: batches in flight fail. A later `send` starts another. */
  async close(): Promise<void> {
    await this.thread?.worker.terminate();
  }

  private start(): Thread {
    const worker = startWorker(this.settings);
    worker.unref(); // a forgotten close() must not keep the process alive
    const thread: Thread = { worker, pending: new Map() };
    worker.on("message", ({ batch, outcomes }: SentBatch) => {
      thread.pending.get(batch)?.resolve(outcomes);
      thread.pending.delete(batch);
    });
    const fail = (error: Error) => {
      if (this.thread === thread) this.thread = undefined;
      for (const pending of thread.pending.values()) pending.reject(error);
      thread.pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the webhook sender thread stopped (exit code ${code})`)));
    return thread;
  }
}
