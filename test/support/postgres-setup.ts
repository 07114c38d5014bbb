import pg from "pg";
import type { TestProject } from "vitest/node";
import { warnUntested } from "./loud.ts";

export const adminUrl = () => process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string | null;
    /** Whether that PostgreSQL can create the pgvector extension (the production default index). */
    pgvectorAvailable: boolean;
  }
}

/**
 * Checks once that PostgreSQL answers, and whether it has pgvector; when it does not answer, every test of the
 * project is skipped, loudly.
 */
export default async function setup(project: TestProject): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    project.provide("postgresUrl", adminUrl());
    project.provide("pgvectorAvailable", rows.length > 0);
  } catch (error) {
    warnUntested([
      `PostgreSQL is not reachable at ${adminUrl()} (${(error as Error).message}).`,
      `EVERY TEST OF THE "postgres" PROJECT IS SKIPPED: the production configuration is NOT tested.`,
      `Start it (see README, "Tests") or set TEST_DATABASE_URL.`,
    ]);
    project.provide("postgresUrl", null);
    project.provide("pgvectorAvailable", false);
  } finally {
    await client.end().catch(() => {});
  }
}
