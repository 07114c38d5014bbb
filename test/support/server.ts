import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { createApp, type App, type AppOverrides } from "../../src/app.ts";
import { loadConfig, type Env } from "../../src/config.ts";
import { keyAdmin } from "../../src/domain/key-admin.ts";
import { createLogger } from "../../src/logger.ts";
import { HttpClient } from "./http.ts";
import { suiteValue } from "./suite-value.ts";

export const databaseUnderTest = (): "pglite" | "postgres" =>
  process.env.TEST_DATABASE === "postgres" ? "postgres" : "pglite";

/** True when this project's database cannot be reached (the postgres project without a server). */
export const databaseUnavailable = (): boolean => databaseUnderTest() === "postgres" && !inject("postgresUrl");

/**
 * Whether this project runs the suites whose subject sits above the database: the API's documentation, GraphQL's
 * own limits, the client library, the legacy routes, the in-process rate limits. They meet the same service on
 * either database, so they run once, on the embedded one, and the postgres project's time goes to what differs
 * there (its driver and pool, concurrent transactions, pgvector, Redis).
 */
export const databaseAgnosticRun = (): boolean => databaseUnderTest() === "pglite";

export interface TestUser {
  handle: string;
  userId: string;
  keyId: string;
  key: string;
  api: HttpClient;
}

export interface TestServer {
  app: App;
  url: string;
  /** A new user with one key, and a client that sends it. */
  newUser(handle?: string): Promise<TestUser>;
  /** A client with no key, or with the one given. */
  client(key?: string): HttpClient;
  close(): Promise<void>;
}

/** A fresh PostgreSQL database for one test file; dropped by the returned function. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = inject("postgresUrl");
  if (!admin) throw new Error("PostgreSQL is not available");
  const name = `memtest_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A database (and data directory) that outlives one server, for restart and CLI tests: a fresh PostgreSQL
 * database, or a temporary PGlite directory; `drop` removes it.
 */
export async function persistentDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (databaseUnderTest() === "postgres") {
    const db = await freshPostgresDatabase();
    return { env: { DATABASE_URL: db.url }, drop: db.drop };
  }
  const dir = mkdtempSync(join(tmpdir(), "memory-test-"));
  return { env: { DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `persistentDatabase()` for a whole suite: made before its tests, dropped after them. Read `env` in the tests
 * (the settings that point a server or a CLI at it).
 */
export function suiteDatabase(): { readonly env: Record<string, string> } {
  const database = suiteValue("the test database", persistentDatabase, (made) => made.drop());
  return {
    get env() {
      return database().env;
    },
  };
}

/** The service on a free loopback port, on a fresh database of the kind under test. */
export async function startTestServer(env: Env = {}, overrides: AppOverrides = {}): Promise<TestServer> {
  // a database of its own, unless the test gives one (several servers on one database): the server drops it
  const postgres = databaseUnderTest() === "postgres" && !env.DATABASE_URL ? await freshPostgresDatabase() : undefined;
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    DATA_DIR: "memory://",
    RATE_LIMIT_MAX: "1000000", // tests that are about rate limits set their own
    AUTH_FAILURE_LIMIT_MAX: "1000000",
    // the hashed embedder embeds as it writes, so most tests need not wait for vectors; the sentence encoder
    // (the default) has tests of its own, which ask for it
    EMBEDDER: "hash",
    ...(process.env.PGLITE_SHARED_BUFFERS_MB ? { PGLITE_SHARED_BUFFERS_MB: process.env.PGLITE_SHARED_BUFFERS_MB } : {}), // vitest.config.ts
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...env,
  } as Record<string, string>);
  const app = await createApp(config, createLogger(config.logLevel), overrides);
  const address = await app.listen();
  const url = `http://127.0.0.1:${address.port}`;
  let users = 0;
  return {
    app,
    url,
    client: (key) => new HttpClient(url, key),
    async newUser(handle = `user${++users}-${randomBytes(3).toString("hex")}@example.com`) {
      const created = await keyAdmin(app.services).create(handle, "test");
      return { handle, userId: created.userId, keyId: created.id, key: created.key, api: new HttpClient(url, created.key) };
    },
    async close() {
      await app.close();
      await postgres?.drop();
    },
  };
}

/**
 * A server (with `env`) for a suite: started before its tests and closed after them. Call it in a describe
 * block; read `server` in the tests.
 */
export function suiteServer(env: Env = {}, overrides: AppOverrides = {}): { readonly server: TestServer } {
  const server = suiteValue("the test server", () => startTestServer(env, overrides), (started) => started.close());
  return {
    get server() {
      return server();
    },
  };
}

/**
 * The set-up most integration suites share: `suiteServer`, and one user made before the suite's tests. Read
 * `server` and `user` in the tests.
 */
export function serverWithUser(env: Env = {}, overrides: AppOverrides = {}): { readonly server: TestServer; readonly user: TestUser } {
  const suite = suiteServer(env, overrides);
  const user = suiteValue("the test user", () => suite.server.newUser());
  return {
    get server() {
      return suite.server;
    },
    get user() {
      return user();
    },
  };
}
