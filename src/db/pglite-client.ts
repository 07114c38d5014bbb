import type { Worker } from "node:worker_threads";
import type {
  ConnectionInfo,
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
  TransactionOptions,
} from "@prisma/driver-adapter-utils";
import type { Logger } from "../logger.ts";
import { startModuleThread } from "../threads/module-thread.ts";
import type { Sql } from "./database.ts";
import { errorOf, type Answer, type Call, type CallName, type Calls } from "./pglite-calls.ts";
import type { PGliteSettings } from "./pglite-engine.ts";

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The embedded database in a thread of its own (pglite-thread.ts), as the event loop's thread sees it: each call a
 * message there and its answer back. Written here rather than taken from PGlite's own worker (PGliteWorker): that
 * one is made for browser tabs (a leader elected through navigator.locks, which Node.js 20 lacks) and sends three
 * messages a query (a lock, the query, its release); here the thread's own PGlite orders the calls.
 */
export class PGliteThread {
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private stopped: Error | undefined;
  adapterName = "";
  connectionInfo: ConnectionInfo | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly logger: Logger | undefined,
  ) {
    // the thread keeps the process alive only while a call waits for it (ref() in call())
    worker.unref();
    worker.on("message", (answer: Answer) => this.answered(answer));
    worker.on("error", (error) => this.failed(error));
    worker.on("exit", (code) => this.failed(new Error(`the embedded database's thread stopped (exit code ${code})`)));
  }

  /**
   * Starts the thread and opens the database in it. If the thread dies (PostgreSQL aborting, say), every call
   * fails from then on with the reason, which goes to `logger`: /readyz answers 503 until the service restarts.
   */
  static async open(settings: PGliteSettings, logger?: Logger): Promise<PGliteThread> {
    const thread = new PGliteThread(
      startModuleThread(import.meta.url, { source: "./pglite-thread.ts", bundled: "./pglite-thread.mjs" }, {}),
      logger,
    );
    try {
      const { adapterName, connectionInfo } = await thread.call("open", settings);
      thread.adapterName = adapterName;
      thread.connectionInfo = connectionInfo;
      return thread;
    } catch (error) {
      await thread.worker.terminate();
      throw error;
    }
  }

  call<N extends CallName>(name: N, args: Calls[N]["args"]): Promise<Calls[N]["result"]> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = ++this.lastId;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, name, args } as Call);
    });
  }

  /** Closes the database; the thread then ends. Calls after it fail. */
  async close(): Promise<void> {
    if (this.stopped) return;
    await this.call("close", {});
    this.stop(new Error("the embedded database is closed"));
  }

  private answered(answer: Answer): void {
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.worker.unref();
    if ("error" in answer) pending.reject(errorOf(answer.error));
    else pending.resolve(answer.value);
  }

  private failed(reason: Error): void {
    if (!this.stopped) this.logger?.error({ err: reason }, "the embedded database's thread failed: the database is unavailable");
    this.stop(reason);
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const pending of this.pending.values()) pending.reject(reason);
    this.pending.clear();
  }
}

/** Raw SQL through the thread; `tx`, inside one of its transactions. */
export function threadSql(thread: PGliteThread, tx?: number): Sql {
  return {
    query: <R>(text: string, params?: unknown[]) => thread.call("query", { tx, text, params }) as Promise<R[]>,
    exec: (script) => thread.call("exec", { tx, script }),
    async transaction(work) {
      if (tx !== undefined) throw new Error("transactions do not nest");
      const begun = await thread.call("begin", {});
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await work(threadSql(thread, begun));
      } catch (error) {
        // the error that made the rollback is the one to report
        await thread.call("end", { tx: begun, commit: false }).catch(() => undefined);
        throw error;
      }
      await thread.call("end", { tx: begun, commit: true });
      return result;
    },
  };
}

class ThreadQueryable {
  readonly provider = "postgres";

  constructor(
    protected readonly thread: PGliteThread,
    protected readonly tx: number | undefined,
  ) {}

  get adapterName(): string {
    return this.thread.adapterName;
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.thread.call("queryRaw", { tx: this.tx, query });
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.thread.call("executeRaw", { tx: this.tx, query });
  }
}

class ThreadTransaction extends ThreadQueryable implements Transaction {
  constructor(
    thread: PGliteThread,
    private readonly id: number,
    readonly options: TransactionOptions,
  ) {
    super(thread, id);
  }

  commit(): Promise<void> {
    return this.thread.call("commit", { tx: this.id });
  }

  rollback(): Promise<void> {
    return this.thread.call("rollback", { tx: this.id });
  }
}

class ThreadAdapter extends ThreadQueryable implements SqlDriverAdapter {
  executeScript(script: string): Promise<void> {
    return this.thread.call("executeScript", { script });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const { tx, options } = await this.thread.call("startTransaction", { isolationLevel });
    return new ThreadTransaction(this.thread, tx, options);
  }

  getConnectionInfo(): ConnectionInfo {
    return this.thread.connectionInfo ?? { supportsRelationJoins: true };
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

/** Prisma's driver adapter (pglite-prisma-adapter's, in the thread) through the thread. */
export function threadAdapterFactory(thread: PGliteThread): SqlDriverAdapterFactory {
  return {
    provider: "postgres",
    adapterName: thread.adapterName,
    connect: () => Promise.resolve(new ThreadAdapter(thread, undefined)),
  };
}
