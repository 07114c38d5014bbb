import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import { PGVECTOR_SESSION_SETTINGS } from "../vectors/pgvector.ts";
import { countStatements } from "./counting-adapter.ts";
import type { Database, Sql } from "./database.ts";
import { migrate } from "./migrate.ts";

function clientSql(client: pg.PoolClient): Sql {
  return {
    query: async <R>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as R[],
    exec: async (script) => {
      await client.query(script);
    },
    transaction: () => {
      throw new Error("transactions do not nest");
    },
  };
}

export async function openPostgres(url: string, poolSize: number, logger?: Logger): Promise<Database> {
  const options = Object.entries(PGVECTOR_SESSION_SETTINGS)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(" ");
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options });
  pool.on("error", (error) => logger?.error({ err: error }, "idle PostgreSQL connection failed"));
  try {
    const client = await pool.connect();
    try {
      await migrate(clientSql(client), logger);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  const sql: Sql = {
    query: async <R>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as R[],
    exec: async (script) => {
      await pool.query(script);
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(clientSql(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  };
  const prismaStatements = { count: 0 };
  const prisma = new PrismaClient({ adapter: countStatements(new PrismaPg(pool), prismaStatements) });
  return {
    kind: "postgres",
    singleWriter: false,
    prisma,
    prismaStatements,
    sql,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
