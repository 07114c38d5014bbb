import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import { countStatements } from "./counting-adapter.ts";
import { openDataDir } from "./data-dir.ts";
import type { Database, Sql } from "./database.ts";
import { migrate } from "./migrate.ts";
import { OwnerOnlyNodeFS } from "./owner-only-node-fs.ts";
import { templateFor, writeTemplate } from "./pglite-template.ts";

type Queryable = Pick<PGlite, "query" | "exec">;

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

function sqlOf(client: Queryable & Partial<Pick<PGlite, "transaction">>): Sql {
  return {
    query: async <R>(text: string, params?: unknown[]) => (await client.query<R>(text, params)).rows,
    exec: async (script) => {
      await client.exec(script);
    },
    transaction: (work) => {
      if (!client.transaction) throw new Error("transactions do not nest");
      return client.transaction((tx) => work(sqlOf(tx)));
    },
  };
}

/** Opens (creating and migrating if needed) the embedded database; `memory://` keeps it in memory. */
export async function openPGlite(dataDir: string, logger?: Logger): Promise<Database> {
  const inMemory = dataDir.startsWith("memory://");
  const lock = inMemory ? undefined : openDataDir(dataDir, logger);
  try {
    const template = templateFor(dataDir);
    const pglite = await PGlite.create({
      dataDir: inMemory ? "memory://" : dataDir,
      ...(inMemory ? {} : { fs: new OwnerOnlyNodeFS(dataDir) }),
      ...(template ? { loadDataDir: template } : {}),
      extensions: { vector },
      ...byteaCodec,
    });
    const sql = sqlOf(pglite);
    await migrate(sql, logger);
    const prismaStatements = { count: 0 };
    const prisma = new PrismaClient({ adapter: countStatements(new PrismaPGlite(pglite), prismaStatements) });
    return {
      kind: "pglite",
      singleWriter: true,
      prisma,
      prismaStatements,
      sql,
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** Writes the snapshot new databases start from (pglite-template.ts): an empty database, migrated. */
export async function buildTemplate(): Promise<void> {
  const pglite = await PGlite.create({ dataDir: "memory://", extensions: { vector } });
  try {
    await migrate(sqlOf(pglite));
    const snapshot = await pglite.dumpDataDir("gzip");
    writeTemplate(new Uint8Array(await snapshot.arrayBuffer()));
  } finally {
    await pglite.close();
  }
}
