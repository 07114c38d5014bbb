// Calls from the event loop's thread to a worker thread that owns some state (the embedded database, the vector
// index), each call a message there and its answer back, answered in the order they arrive. Written here rather
// than taken from a library: the calls are typed per thread (a map of name → arguments and result), errors cross
// with what their callers test for (PostgreSQL's codes), and a thread that dies fails every call with its reason.
import type { MessagePort, Worker } from "node:worker_threads";

/** A thread's calls by name: each one's arguments and result. */
export type CallMap = { [name: string]: { args: unknown; result: unknown } };

export type CallName<C extends CallMap> = keyof C & string;

export type CallTo<C extends CallMap> = { [N in CallName<C>]: { id: number; name: N; args: C[N]["args"] } }[CallName<C>];

/** A call's value or its error (`E`: the error as it crosses), or a notice the thread sends of its own accord. */
export type ThreadMessage<E> = { id: number; value: unknown } | { id: number; error: E } | { notice: unknown };

/** How an error crosses the thread boundary and what it becomes on the other side. */
export interface ErrorCodec<E> {
  toCrossing(error: unknown): E;
  fromCrossing(crossing: E): Error;
}

/** Errors by their message alone: for threads whose callers test nothing else. */
export const messageOnly: ErrorCodec<{ message: string }> = {
  toCrossing: (error) => ({ message: error instanceof Error ? error.message : String(error) }),
  fromCrossing: (crossing) => new Error(crossing.message),
};

export interface CallerOptions<E> {
  /** What the thread holds, for the error calls fail with once it is gone ("the embedded database"). */
  holds: string;
  errors: ErrorCodec<E>;
  /** A thread that dies is reported here, once. */
  failed?(reason: Error): void;
  /** Messages of the thread's own accord (a log line). */
  notice?(notice: unknown): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The event loop's side of a worker thread that answers calls (`serveCalls` on its side). */
export class ThreadCaller<C extends CallMap, E> {
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private stopped: Error | undefined;
  /** The closing call's id, once made: the thread ends after answering it. */
  private closingId: number | undefined;

  constructor(
    protected readonly worker: Worker,
    private readonly options: CallerOptions<E>,
  ) {
    // the thread keeps the process alive only while a call waits for it (ref() in call())
    worker.unref();
    worker.on("message", (message: ThreadMessage<E>) => this.received(message));
    worker.on("error", (error) => this.fail(error));
    worker.on("exit", (code) => this.fail(new Error(`${options.holds}'s thread stopped (exit code ${code})`)));
  }

  call<N extends CallName<C>>(name: N, args: C[N]["args"]): Promise<C[N]["result"]> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = ++this.lastId;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        this.worker.postMessage({ id, name, args });
      } catch (error) {
        // arguments that cannot be cloned: this call fails, the thread serves on
        this.settled(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Why calls fail, once the thread is gone or closed; undefined while it serves. */
  get unavailable(): Error | undefined {
    return this.stopped;
  }

  /** Makes the closing call (after which the thread ends); calls after it fail. */
  protected async closeWith<N extends CallName<C>>(name: N, args: C[N]["args"]): Promise<void> {
    if (this.stopped) return;
    const closed = this.call(name, args);
    this.closingId = this.lastId;
    await closed;
  }

  /** Ends the thread at once, answering every waiting call with an error. */
  protected async terminate(): Promise<void> {
    this.stop(new Error(`${this.options.holds} is closed`));
    await this.worker.terminate();
  }

  private received(message: ThreadMessage<E>): void {
    if ("notice" in message) {
      this.options.notice?.(message.notice);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.settled(message.id);
    if ("error" in message) return pending.reject(this.options.errors.fromCrossing(message.error));
    pending.resolve(message.value);
    // closed as its answer is read: Node.js reads a stopped thread's last messages and emits its 'exit' in one turn
    // of the event loop, before the closing caller resumes, and that exit is no failure
    if (message.id === this.closingId) this.stop(new Error(`${this.options.holds} is closed`));
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  private fail(reason: Error): void {
    if (!this.stopped) this.options.failed?.(reason);
    this.stop(reason);
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const pending of this.pending.values()) pending.reject(reason);
    this.pending.clear();
  }
}

export type Handlers<C extends CallMap> = { [N in CallName<C>]: (args: C[N]["args"]) => Promise<C[N]["result"]> };

// A thread that has answered calls and then none for this long collects its garbage, where the process lets it
// (main.ts exposes V8's gc): the buffers its calls left are freed into its allocator's heap, which the heap
// trimmer (heap-trim.ts) then hands back. Left to itself, an idle thread's V8 does not collect for a long while.
const COLLECT_AFTER_IDLE_MS = 3_000;

function collectWhenIdle(): () => void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) return () => {};
  let lastCall = 0;
  let calledSinceCollect = false;
  setInterval(() => {
    if (calledSinceCollect && performance.now() - lastCall > COLLECT_AFTER_IDLE_MS) {
      calledSinceCollect = false;
      collect();
    }
  }, COLLECT_AFTER_IDLE_MS).unref();
  return () => {
    lastCall = performance.now();
    calledSinceCollect = true;
  };
}

/**
 * The thread's side: answers each call with its handler, in the order they arrive (a handler's awaits let the
 * next call start, as on any event loop). After the `last` call (closing what the thread holds) the thread ends.
 * Returns what work the thread does of its own accord (a timer's) calls to count as a call: the thread then
 * collects what it left once idle.
 */
export function serveCalls<C extends CallMap, E>(port: MessagePort, handlers: Handlers<C>, errors: ErrorCodec<E>, last: CallName<C>): () => void {
  const called = collectWhenIdle();
  async function answer(call: CallTo<C>): Promise<unknown> {
    // each name with its own arguments (CallTo is a union by name); awaited here so that a handler that throws
    // before its first await answers with its error rather than ending the thread
    const handler = handlers[call.name] as (args: unknown) => Promise<unknown>;
    return await handler(call.args);
  }
  port.on("message", (call: CallTo<C>) => {
    called();
    answer(call).then(
      (value) => {
        port.postMessage({ id: call.id, value } satisfies ThreadMessage<E>);
        if (call.name === last) port.close();
      },
      (error: unknown) => port.postMessage({ id: call.id, error: errors.toCrossing(error) } satisfies ThreadMessage<E>),
    );
  });
  return called;
}

/** Sends a message of the thread's own accord (ThreadCaller's `notice`). */
export function sendNotice(port: MessagePort, notice: unknown): void {
  port.postMessage({ notice } satisfies ThreadMessage<never>);
}
