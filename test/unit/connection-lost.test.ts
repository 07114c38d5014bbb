import { describe, expect, it } from "vitest";
import { asAppError, connectionLost } from "../../src/errors.ts";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("a database out of reach is told apart from a bug", () => {
  it.each([
    ["node-postgres: the server shut the connection (57P01)", withCode("terminating connection due to administrator command", "57P01")],
    ["node-postgres: the server is starting (57P03)", withCode("the database system is starting up", "57P03")],
    ["node-postgres: a connection exception (class 08)", withCode("connection failure", "08006")],
    ["node-postgres: a connection lost without a code", new Error("Connection terminated unexpectedly")],
    ["Node.js: connection refused", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
    ["node-postgres: no connection within DATABASE_TIMEOUT_MS", new Error("timeout exceeded when trying to connect")],
    ["Prisma: cannot reach the server (P1001)", withCode("Can't reach database server at 127.0.0.1:5432", "P1001")],
    ["Prisma: no pooled connection in time (P2024)", withCode("Timed out fetching a new connection from the connection pool", "P2024")],
    [
      "Prisma over the driver adapter: the adapter's postgres error in meta",
      Object.assign(new Error("Raw query failed"), { code: "P2010", meta: { driverAdapterError: { cause: { kind: "postgres", code: "57P01" } } } }),
    ],
    ["the adapter's own kind, as a cause", new Error("query failed", { cause: { kind: "DatabaseNotReachable", host: "db", port: 5432 } })],
  ])("%s: 503 SERVICE_UNAVAILABLE with Retry-After", (_name, error) => {
    expect(connectionLost(error)).toBe(true);
    const appError = asAppError(error);
    expect(appError).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, headers: { "retry-after": "1" } });
    expect(appError.cause).toBe(error);
  });

  it.each([
    ["a unique violation", withCode("duplicate key value violates unique constraint", "23505")],
    ["a syntax error in SQL", withCode('syntax error at or near "SELEC"', "42601")],
    ["a plain bug", new TypeError("Cannot read properties of undefined (reading 'id')")],
    ["not an error at all", "a string thrown"],
  ])("%s: INTERNAL", (_name, error) => {
    expect(connectionLost(error)).toBe(false);
    expect(asAppError(error).code).toBe("INTERNAL");
  });
});

// a full disk answered every write a bare 500 INTERNAL (outside probe)
describe("a database whose disk is full", () => {
  it.each([
    ["PostgreSQL's disk_full (53100)", withCode('could not extend file "base/5/16461": No space left on device', "53100")],
    [
      "Prisma over the driver adapter: the adapter's postgres error in meta",
      Object.assign(new Error("Raw query failed"), { code: "P2010", meta: { driverAdapterError: { cause: { kind: "postgres", code: "53100" } } } }),
    ],
    ["the message alone, as a cause", new Error("query failed", { cause: new Error("could not write to file: No space left on device") })],
  ])("%s: 503 SERVICE_UNAVAILABLE that says so, with Retry-After", (_name, error) => {
    const appError = asAppError(error);
    expect(appError).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, headers: { "retry-after": "30" } });
    expect(appError.message).toMatch(/disk is full/);
  });
});
