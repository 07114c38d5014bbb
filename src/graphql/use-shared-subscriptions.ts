import { print, type ExecutionResult } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Context } from "./context.ts";

type Results = AsyncIterator<ExecutionResult>;
type Subscribed = Results | ExecutionResult;

// results a subscriber has not read yet (its client reads slower than events come) before its stream is ended:
// completed, as a stream the server ends, rather than held in memory without bound
const MAX_QUEUED = 1024;

/**
 * One execution of a subscription, its results handed to every subscriber that asked the same: started by the
 * first, ended when the last leaves (or when its events end: the server is shutting down).
 */
class SharedExecution {
  private readonly subscribers = new Set<SubscriberStream>();
  /** Every subscriber has left: the execution is over, and a subscriber that comes now needs a new one. */
  private abandoned = false;
  private ended: { failure: unknown } | undefined;

  constructor(
    private readonly results: Results,
    private readonly forget: () => void,
  ) {
    void this.pump();
  }

  private async pump(): Promise<void> {
    let failure: unknown;
    try {
      for (let next = await this.results.next(); !next.done; next = await this.results.next()) {
        const result = serializedOnce(next.value);
        for (const subscriber of this.subscribers) subscriber.push(result);
      }
    } catch (error) {
      failure = error;
    }
    this.ended = { failure };
    this.forget();
    for (const subscriber of this.subscribers) subscriber.end(failure);
  }

  /** A new subscriber's stream; undefined when the execution was abandoned meanwhile. */
  join(): SubscriberStream | undefined {
    if (this.abandoned) return undefined;
    const subscriber = new SubscriberStream(this);
    if (this.ended) subscriber.end(this.ended.failure);
    else this.subscribers.add(subscriber);
    return subscriber;
  }

  leave(subscriber: SubscriberStream): void {
    if (!this.subscribers.delete(subscriber) || this.subscribers.size > 0 || this.ended) return;
    this.abandoned = true;
    this.forget();
    void this.results.return?.();
  }
}

/**
 * Yoga's event stream writes a result with the result's own `stringify` when it has one (and JSON.stringify
 * otherwise): every subscriber of an execution is handed the same result, which is then serialized once for all
 * of them, not once each. A copy Yoga makes first (to take internals out of its errors) is serialized as usual.
 */
function serializedOnce(result: ExecutionResult): ExecutionResult {
  let text: string | undefined;
  const stringify = (value: unknown) => (value === result ? (text ??= JSON.stringify(result)) : JSON.stringify(value));
  return Object.defineProperty(result, "stringify", { value: stringify });
}

// results written in one chunk at most: a relay round holds up to 500 events
const MAX_JOINED = 128;

/** How many of the first queued results (MAX_JOINED at most) have neither errors nor extensions. */
function leadingPlain(queue: readonly ExecutionResult[]): number {
  let count = 0;
  while (count < queue.length && count < MAX_JOINED && !queue[count]!.errors && !queue[count]!.extensions) count++;
  return count;
}

/**
 * Several results as one, written as as many events: Yoga's SSE writer writes a result as `event: next`, then
 * `data: ` + its `stringify` + a blank line (the graphql-sse format), so joining the results' texts with the same
 * separator makes one chunk of several events. Under a stream of writes a subscriber's stream then goes through
 * Yoga's response stream and the socket once a relay round, not once an event (the server's time in that path
 * about halved with ten subscribers: bench/README.md, "Events"). Subscription results reach only this writer
 * (Yoga serves subscriptions over SSE alone); results with errors or extensions, which Yoga rewrites before
 * writing, are never joined. shared-subscriptions.test.ts parses the stream as a client does.
 */
function joined(results: readonly ExecutionResult[]): ExecutionResult {
  const text = () => results.map(textOf).join("\n\nevent: next\ndata: ");
  return Object.defineProperty({}, "stringify", { value: text });
}

const textOf = (result: ExecutionResult): string => {
  const { stringify } = result as { stringify?: (value: unknown) => string };
  return stringify ? stringify(result) : JSON.stringify(result);
};

/** One subscriber's results, queued until its stream reads them. */
class SubscriberStream implements AsyncIterableIterator<ExecutionResult> {
  private readonly queue: ExecutionResult[] = [];
  private wake: (() => void) | undefined;
  private wakeScheduled = false;
  private ended: { failure: unknown } | undefined;

  constructor(private readonly execution: SharedExecution) {}

  push(result: ExecutionResult): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.end(undefined);
      this.execution.leave(this);
      return;
    }
    this.queue.push(result);
    // woken once the events dispatched in this turn of the event loop (a relay round's) are all queued, to be
    // written together (see joined)
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.wake?.();
    });
  }

  end(failure: unknown): void {
    this.ended ??= { failure };
    this.wake?.();
  }

  async next(): Promise<IteratorResult<ExecutionResult>> {
    for (;;) {
      const plain = leadingPlain(this.queue);
      const value = plain > 1 ? joined(this.queue.splice(0, plain)) : this.queue.shift();
      if (value) return { done: false, value };
      if (this.ended) {
        const { failure } = this.ended;
        this.ended = { failure: undefined };
        if (failure !== undefined) throw failure;
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    this.queue.length = 0;
    this.end(undefined);
    this.execution.leave(this);
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

const isResults = (subscribed: Subscribed): subscribed is Results => typeof (subscribed as Results).next === "function";

/**
 * Subscribers that ask the same (the same document, operation and variables, with the same API key, so with the
 * same rights) share one execution of it: each event's selection is resolved once, not once per subscriber
 * (ten dashboards open on one key cost the server ten executions of every event). Each subscriber has its own
 * queue of the results, so that a slow one holds back none of the others. The execution runs in the context of
 * the subscriber that started it, which the event fields do not read beyond the key's user (see event.ts); a
 * subscription refused (its arguments wrong) is answered to each subscriber alike, and not kept.
 */
export function useSharedSubscriptions(): Plugin<Context> {
  const executions = new Map<string, Promise<Subscribed | SharedExecution>>();

  const executionOf = (key: string, subscribe: () => Subscribed | Promise<Subscribed>) => {
    const existing = executions.get(key);
    if (existing) return existing;
    const started: Promise<Subscribed | SharedExecution> = Promise.resolve()
      .then(subscribe)
      .then((subscribed) => {
        if (!isResults(subscribed)) {
          forget();
          return subscribed;
        }
        return new SharedExecution(subscribed, forget);
      });
    const forget = () => {
      if (executions.get(key) === started) executions.delete(key);
    };
    started.catch(forget);
    executions.set(key, started);
    return started;
  };

  return {
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const { principal } = args.contextValue;
      const key = JSON.stringify([principal.keyId, args.operationName ?? null, print(args.document), args.variableValues ?? {}]);
      setSubscribeFn(async (subscribeArgs) => {
        for (;;) {
          const execution = await executionOf(key, () => subscribeFn(subscribeArgs));
          if (!(execution instanceof SharedExecution)) return execution;
          // abandoned between its start and this join only when every other subscriber left meanwhile
          const joined = execution.join();
          if (joined) return joined;
        }
      });
    },
  };
}
