// What the event loop's thread asks of the embedded database's thread (pglite-thread.ts) and what it answers: the
// two ways in that the service uses, raw SQL (`Sql`) and Prisma's driver adapter, each call a message each way.
import type { ConnectionInfo, IsolationLevel, SqlQuery, SqlResultSet, TransactionOptions } from "@prisma/driver-adapter-utils";
import type { ErrorCodec } from "../threads/thread-calls.ts";
import type { PGliteSettings } from "./pglite-engine.ts";

/** Each call's arguments and result. `tx` names a transaction begun by `begin` or `startTransaction`. */
export type Calls = {
  open: { args: PGliteSettings; result: { adapterName: string; connectionInfo: ConnectionInfo | undefined } };
  query: { args: { tx?: number; text: string; params?: unknown[] }; result: unknown[] };
  exec: { args: { tx?: number; script: string }; result: void };
  begin: { args: Record<string, never>; result: number };
  end: { args: { tx: number; commit: boolean }; result: void };
  queryRaw: { args: { tx?: number; query: SqlQuery }; result: SqlResultSet };
  executeRaw: { args: { tx?: number; query: SqlQuery }; result: number };
  executeScript: { args: { script: string }; result: void };
  startTransaction: { args: { isolationLevel?: IsolationLevel }; result: { tx: number; options: TransactionOptions } };
  commit: { args: { tx: number }; result: void };
  rollback: { args: { tx: number }; result: void };
  close: { args: Record<string, never>; result: void };
};

/** How an error crosses: PostgreSQL's with its fields, Prisma's adapter's with its cause, any other by message. */
export type CrossingError =
  | { kind: "database"; message: string; fields: Record<string, unknown> }
  | { kind: "adapter"; message: string; cause: object }
  | { kind: "other"; message: string };

/** An error PostgreSQL reported in the database's thread, with the fields PGlite gives it (code, detail, constraint...). */
class DatabaseError extends Error {
  override name = "DatabaseError";
  code?: string;
  detail?: string;
  constraint?: string;
}

/**
 * Prisma's driver-adapter error as Prisma recognises it (by name and cause, @prisma/client's isDriverAdapterError),
 * so that a unique violation met in the thread is Prisma's P2002 here as it would be in one thread.
 */
class DriverAdapterError extends Error {
  override name = "DriverAdapterError";
  constructor(
    message: string,
    override readonly cause: object,
  ) {
    super(message);
  }
}

function crossingError(error: unknown): CrossingError {
  if (!(error instanceof Error)) return { kind: "other", message: String(error) };
  if (error.name === "DriverAdapterError" && typeof error.cause === "object" && error.cause !== null) {
    return { kind: "adapter", message: error.message, cause: error.cause };
  }
  // PGlite's DatabaseError (pg-protocol's): its fields are its own properties
  if ("severity" in error && "code" in error) return { kind: "database", message: error.message, fields: { ...error } };
  return { kind: "other", message: error.message };
}

function errorOf(crossing: CrossingError): Error {
  switch (crossing.kind) {
    case "database":
      return Object.assign(new DatabaseError(crossing.message), crossing.fields, { name: "DatabaseError" });
    case "adapter":
      return new DriverAdapterError(crossing.message, crossing.cause);
    case "other":
      return new Error(crossing.message);
  }
}

export const pgliteErrors: ErrorCodec<CrossingError> = { toCrossing: crossingError, fromCrossing: errorOf };
