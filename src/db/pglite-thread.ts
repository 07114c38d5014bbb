// The embedded database's thread (pglite-client.ts starts it): PGlite, with Prisma's driver adapter on it, answering
// the calls of the event loop's thread (pglite-calls.ts) in the order they come. PostgreSQL's work (the WebAssembly)
// and PGlite's protocol codec are half of a create's time on one thread: here they leave the API's loop free.
import type { PGlite } from "@electric-sql/pglite";
import type { SqlDriverAdapter, Transaction } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { parentPort } from "node:worker_threads";
import type { Sql } from "./database.ts";
import { serveCalls, type Handlers } from "../threads/thread-calls.ts";
import { pgliteErrors, type Calls } from "./pglite-calls.ts";
import { createPGlite, preparedClient, sqlOf } from "./pglite-engine.ts";
import { PreparedStatements } from "./pglite-prepared.ts";

const port = parentPort;
if (!port) throw new Error("pglite-thread runs as a worker thread");

interface Opened {
  pglite: PGlite;
  sql: Sql;
  adapter: SqlDriverAdapter;
}

/** A raw-SQL transaction held open until the event loop's thread ends it. */
interface SqlTransaction {
  sql: Sql;
  end(commit: boolean): void;
  done: Promise<void>;
}

const ROLLED_BACK = Symbol("rolled back");

let opened: Opened | undefined;
let lastTx = 0;
const sqlTransactions = new Map<number, SqlTransaction>();
const prismaTransactions = new Map<number, Transaction>();

function db(): Opened {
  if (!opened) throw new Error("the embedded database is not open");
  return opened;
}

function held<T>(map: Map<number, T>, tx: number): T {
  const found = map.get(tx);
  if (!found) throw new Error(`no open transaction ${tx}`);
  return found;
}

function taken<T>(map: Map<number, T>, tx: number): T {
  const found = held(map, tx);
  map.delete(tx);
  return found;
}

const sqlIn = (tx: number | undefined): Sql => (tx === undefined ? db().sql : held(sqlTransactions, tx).sql);
const prismaIn = (tx: number | undefined) => (tx === undefined ? db().adapter : held(prismaTransactions, tx));

const handlers: Handlers<Calls> = {
  async open(settings) {
    const pglite = await createPGlite(settings);
    // one set of prepared statements for both ways in: raw SQL and Prisma's
    const prepared = new PreparedStatements(pglite);
    const adapter = await new PrismaPGlite(preparedClient(pglite, prepared)).connect();
    opened = { pglite, sql: sqlOf(pglite, prepared), adapter };
    return { adapterName: adapter.adapterName, connectionInfo: adapter.getConnectionInfo?.() };
  },
  query: ({ tx, text, params }) => sqlIn(tx).query(text, params),
  exec: ({ tx, script }) => sqlIn(tx).exec(script),
  begin: () =>
    new Promise((begun, failed) => {
      const tx = ++lastTx;
      const done = db().sql.transaction(
        (sql) =>
          new Promise<void>((commit, rollBack) => {
            sqlTransactions.set(tx, { sql, end: (ok) => (ok ? commit() : rollBack(ROLLED_BACK)), done });
            begun(tx);
          }),
      );
      // a BEGIN that fails rejects `begin`; an outcome after it is `end`'s
      done.catch(failed);
    }),
  async end({ tx, commit }) {
    const transaction = taken(sqlTransactions, tx);
    transaction.end(commit);
    await transaction.done.catch((error: unknown) => {
      if (error !== ROLLED_BACK) throw error;
    });
  },
  queryRaw: ({ tx, query }) => prismaIn(tx).queryRaw(query),
  executeRaw: ({ tx, query }) => prismaIn(tx).executeRaw(query),
  executeScript: ({ script }) => db().adapter.executeScript(script),
  async startTransaction({ isolationLevel }) {
    const transaction = await db().adapter.startTransaction(isolationLevel);
    const tx = ++lastTx;
    prismaTransactions.set(tx, transaction);
    return { tx, options: transaction.options };
  },
  commit: ({ tx }) => taken(prismaTransactions, tx).commit(),
  rollback: ({ tx }) => taken(prismaTransactions, tx).rollback(),
  async close() {
    await opened?.pglite.close();
    opened = undefined;
  },
};

// with the database closed, nothing is left to do: the thread ends
serveCalls(port, handlers, pgliteErrors, "close");
