import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { PGlite, type QueryOptions, type Results, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import type { Sql } from "./database.ts";
import { migrate } from "./migrate.ts";
import { OwnerOnlyNodeFS } from "./owner-only-node-fs.ts";
import { PreparedStatements, type RunOptions } from "./pglite-prepared.ts";
import { emptyTemplateDir, templateArchive, writeTemplateArchive } from "./pglite-template.ts";

const BYTEA = 17;

/**
 * bytea read in PostgreSQL's hex text form through Node's native hex codec (PGlite's own codec goes byte by
 * byte: a string and a parseInt per byte, ~0.5 ms for one 512-dimension embedding), and written in binary
 * form, which PGlite sends for a Uint8Array as it is. A bytea[] parameter is not supported (the array
 * serializer wants text): pass byte strings packed into one (see packed-bytes.ts).
 */
const byteaCodec = {
  parsers: {
    // a copy with its own ArrayBuffer: Node's hex decoder may return a slice of a shared pool
    [BYTEA]: (text: string): Uint8Array => new Uint8Array(Buffer.from(text.slice(2), "hex")),
  },
  serializers: {
    // typed as returning text, but PGlite's protocol writer (node-postgres's) sends a byte view as a binary
    // parameter (test/integration/packed-bytes.test.ts checks the round trip)
    [BYTEA]: ((value: unknown): Uint8Array => {
      if (!(value instanceof Uint8Array)) throw new Error("Invalid input for bytea type");
      return value;
    }) as unknown as (value: unknown) => string,
  },
};

/** Raw SQL on `pglite`, through `prepared` (the statements it shares with Prisma's adapter, `preparedClient`). */
export function sqlOf(pglite: PGlite, prepared = new PreparedStatements(pglite)): Sql {
  const inTransaction = (tx: Transaction): Sql => ({
    query: async <R>(text: string, params?: unknown[]) => (await queryIn(pglite, prepared, text, params, { inTransaction: true })).rows as R[],
    exec: async (script) => {
      await tx.exec(script);
    },
    transaction: () => {
      throw new Error("transactions do not nest");
    },
  });
  return {
    query: async <R>(text: string, params?: unknown[]) => (await queryIn(pglite, prepared, text, params)).rows as R[],
    exec: async (script) => {
      await pglite.exec(script);
    },
    transaction: (work) => pglite.transaction((tx) => work(inTransaction(tx))),
  };
}

/**
 * A statement run as PGlite's own query runs it: outside a transaction, it waits for one under way (its lock); then
 * it takes the query lock.
 */
function queryIn<R>(pglite: PGlite, prepared: PreparedStatements, text: string, params: unknown[] = [], options: RunOptions = {}): Promise<Results<R>> {
  const run = () => pglite._runExclusiveQuery(() => prepared.results<R>(text, params, options));
  return options.inTransaction ? run() : pglite._runExclusiveTransaction(run);
}

/**
 * `pglite` as Prisma's driver adapter (pglite-prisma-adapter) uses it, its queries, in a transaction or not, run
 * through `prepared`: the adapter calls `query`, with its own parsers, for every statement Prisma makes.
 */
export function preparedClient(pglite: PGlite, prepared: PreparedStatements): PGlite {
  const query = (inTransaction: boolean) => (text: string, params?: unknown[], options?: QueryOptions) =>
    queryIn(pglite, prepared, text, params, { ...options, inTransaction });
  // PGlite's methods read private fields: called on the proxy, they would not find them
  const own = <T extends object>(target: T, key: string | symbol) => {
    const value: unknown = Reflect.get(target, key, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  return new Proxy(pglite, {
    get(target, key) {
      if (key === "query") return query(false);
      if (key !== "transaction") return own(target, key);
      return <T>(work: (tx: Transaction) => Promise<T>) =>
        target.transaction((tx) => work(new Proxy(tx, { get: (inner, name) => (name === "query" ? query(true) : own(inner, name)) })));
    },
  });
}

export interface PGliteSettings {
  /** A directory, or `memory://` for a database in memory. */
  dataDir: string;
  /** shared_buffers, in MB. */
  sharedBuffersMb?: number;
  /** PostgreSQL compiled (pgliteWasm): PGlite compiles it itself when not given. */
  wasmModule?: WebAssembly.Module;
}

/**
 * The WAL segment size new databases are made with. initdb's default, 16 MB, makes pg_wal at least 32 MB (two
 * segments) whatever the settings below say; 1 MB segments let a checkpoint leave a few MB.
 */
const NEW_WAL_SEGMENT_MB = 1;
const INITDB_PARAMS = [`--wal-segsize=${NEW_WAL_SEGMENT_MB}`];

/**
 * The segment size of the database in `dataDir`: every file in pg_wal named as a segment has that size. A
 * database made before NEW_WAL_SEGMENT_MB has 16 MB segments, and PostgreSQL refuses to start when min_wal_size
 * or max_wal_size is under two segments, so the WAL settings follow the database.
 */
function walSegmentMb(dataDir: string): number {
  const walDir = join(dataDir, "pg_wal");
  const segment = existsSync(walDir) ? readdirSync(walDir).find((name) => /^[0-9A-F]{24}$/.test(name)) : undefined;
  return segment ? statSync(join(walDir, segment)).size / (1024 * 1024) : NEW_WAL_SEGMENT_MB;
}

/**
 * What the embedded PostgreSQL runs with, beyond PGlite's own start parameters. initdb's defaults are a server's:
 * 128 MB of shared_buffers, which the process holds as soon as they are touched (PGlite reads pages through the
 * OS's file cache, so a smaller pool costs a copy, not a disk read), and up to 1 GB of WAL before a checkpoint
 * (half the data directory at 100 000 memories). The service checkpoints itself at half of max_wal_size
 * (maintenance.ts); the segments a checkpoint keeps for reuse are at least min_wal_size and at most max_wal_size.
 */
function startParams({ sharedBuffersMb = 32 }: PGliteSettings, walSegmentMb: number): string[] {
  const settings = {
    shared_buffers: `${sharedBuffersMb}MB`,
    max_wal_size: `${Math.max(8, 2 * walSegmentMb)}MB`,
    min_wal_size: `${2 * walSegmentMb}MB`,
  };
  return [...PGlite.defaultStartParams, ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`])];
}

/**
 * Starts PostgreSQL on `dataDir` (seeded beforehand, pglite-template.ts), or on a new in-memory database made from
 * the snapshot when there is one. It runs on the thread that calls this: the service's is pglite-thread.ts.
 */
export function createPGlite(settings: PGliteSettings): Promise<PGlite> {
  const { dataDir } = settings;
  const inMemory = dataDir.startsWith("memory://");
  const template = inMemory ? templateArchive() : undefined;
  return PGlite.create({
    dataDir: inMemory ? "memory://" : dataDir,
    ...(inMemory ? {} : { fs: new OwnerOnlyNodeFS(dataDir) }),
    ...(template ? { loadDataDir: template } : {}),
    extensions: { vector },
    initDbStartParams: INITDB_PARAMS,
    // an in-memory database is made by this build (from its snapshot, or by initdb)
    startParams: startParams(settings, inMemory ? NEW_WAL_SEGMENT_MB : walSegmentMb(dataDir)),
    ...(settings.wasmModule ? { pgliteWasmModule: settings.wasmModule } : {}),
    ...byteaCodec,
  });
}

/**
 * initdb makes template0 and template1 beside `postgres`, the one PGlite opens, each as large as an empty database
 * (7 MB each of the snapshot's 29). They serve only CREATE DATABASE, which the service never runs, yet every
 * in-memory database would unpack them (about 0.3 CPU-s of its start) and every new data directory hold them.
 */
async function dropTemplateDatabases(pglite: PGlite): Promise<void> {
  for (const name of ["template0", "template1"]) {
    await pglite.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
    // a statement of its own: DROP DATABASE refuses to run inside the implicit transaction of a multi-statement exec
    await pglite.exec(`DROP DATABASE ${name}`);
  }
}

/**
 * Makes the snapshot new databases start from (pglite-template.ts): an empty database, migrated, as a directory
 * and as an archive.
 */
export async function buildTemplate(): Promise<void> {
  const dataDir = emptyTemplateDir();
  const pglite = await PGlite.create({
    dataDir,
    fs: new OwnerOnlyNodeFS(dataDir),
    extensions: { vector },
    initDbStartParams: INITDB_PARAMS,
  });
  try {
    await migrate(sqlOf(pglite));
    await dropTemplateDatabases(pglite);
    const snapshot = await pglite.dumpDataDir("gzip");
    writeTemplateArchive(new Uint8Array(await snapshot.arrayBuffer()));
  } finally {
    await pglite.close();
  }
}
