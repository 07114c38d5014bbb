import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
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
import { ThreadCaller, type CallName } from "../threads/thread-calls.ts";
import type { Sql } from "./database.ts";
import { pgliteErrors, type Calls, type CrossingError } from "./pglite-calls.ts";
import type { PGliteSettings } from "./pglite-engine.ts";

let compiled: Promise<WebAssembly.Module> | undefined;

// what a statement that may write (or lock rows, which writes too) begins or holds; a read that names one of these
// words otherwise is refused with the writes, while the disk is almost full
const WRITING = /\b(insert|update|delete|merge|create|alter|drop|truncate|copy|vacuum|analyze|checkpoint|cluster|reindex)\b/i;

const writes = (statement: string | undefined): boolean => statement !== undefined && WRITING.test(statement);

function statementOf<N extends CallName<Calls>>(name: N, args: Calls[N]["args"]): string | undefined {
  const call = args as { text?: string; script?: string; query?: SqlQuery };
  return call.text ?? call.script ?? call.query?.sql;
}

/** As PostgreSQL's own disk_full (53100), which asAppError answers with 503. */
const diskAlmostFull = (): Error =>
  Object.assign(new Error("the data directory's disk is almost full: no change is written until space is freed (No space left on device)"), {
    code: "53100",
  });

/**
 * PostgreSQL's WebAssembly (PGlite's, beside its entry point), compiled once per process and handed to each
 * database thread: V8 shares a module's compiled code between threads, so a database opened later (each test
 * server opens one of its own) neither compiles nor warms it up again, about a second of CPU less an opening.
 */
function pgliteWasm(): Promise<WebAssembly.Module> {
  if (compiled) return compiled;
  const file = join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "pglite.wasm");
  const compiling = readFile(file).then((bytes) => WebAssembly.compile(bytes));
  // a failure is not kept: the next opening tries again
  compiling.catch(() => {
    if (compiled === compiling) compiled = undefined;
  });
  compiled = compiling;
  return compiling;
}

/**
 * The embedded database in a thread of its own (pglite-thread.ts), as the event loop's thread sees it: each call a
 * message there and its answer back. Written here rather than taken from PGlite's own worker (PGliteWorker): that
 * one is made for browser tabs (a leader elected through navigator.locks, which Node.js 20 lacks) and sends three
 * messages a query (a lock, the query, its release); here the thread's own PGlite orders the calls.
 */
export class PGliteThread extends ThreadCaller<Calls, CrossingError> {
  adapterName = "";
  connectionInfo: ConnectionInfo | undefined;

  /**
   * Starts the thread and opens the database in it. If the thread dies (PostgreSQL aborting, say), every call
   * fails from then on with the reason, which goes to `logger`: /readyz answers 503 until the service restarts.
   */
  static async open(settings: PGliteSettings, logger?: Logger): Promise<PGliteThread> {
    const thread = new PGliteThread(
      startModuleThread(import.meta.url, { source: "./pglite-thread.ts", bundled: "./pglite-thread.mjs" }, {}),
      {
        holds: "the embedded database",
        errors: pgliteErrors,
        failed: (reason) => logger?.error({ err: reason }, "the embedded database's thread failed: the database is unavailable"),
      },
    );
    try {
      const { adapterName, connectionInfo } = await thread.call("open", { ...settings, wasmModule: await pgliteWasm() });
      thread.adapterName = adapterName;
      thread.connectionInfo = connectionInfo;
      return thread;
    } catch (error) {
      await thread.terminate();
      throw error;
    }
  }

  /**
   * Refuses the statements that write while it says so (the disk almost full: DiskSpace.low), before they reach
   * PostgreSQL: a WAL segment or a checkpoint that cannot be written stops single-user PostgreSQL for good (PANIC),
   * every later call hanging until a restart (outside probe). Reads go on.
   */
  refuseWrites: (() => boolean) | undefined;

  override call<N extends CallName<Calls>>(name: N, args: Calls[N]["args"]): Promise<Calls[N]["result"]> {
    if (this.refuseWrites?.() && writes(statementOf(name, args))) return Promise.reject(diskAlmostFull());
    return super.call(name, args);
  }

  /** Closes the database; the thread then ends. Calls after it fail. */
  close(): Promise<void> {
    return this.closeWith("close", {});
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
