import pg from "pg";
import type { TestProject } from "vitest/node";

export const adminUrl = () => process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string | null;
  }
}

/** Checks once that PostgreSQL answers; when it does not, every test of the project is skipped, loudly. */
export default async function setup(project: TestProject): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    project.provide("postgresUrl", adminUrl());
  } catch (error) {
    const line = "!".repeat(100);
    console.warn(
      `\n${line}\n!! PostgreSQL is not reachable at ${adminUrl()} (${(error as Error).message}).\n` +
        `!! EVERY TEST OF THE "postgres" PROJECT IS SKIPPED: the production configuration is NOT tested.\n` +
        `!! Start it (see README, "Tests") or set TEST_DATABASE_URL.\n${line}\n`,
    );
    project.provide("postgresUrl", null);
  } finally {
    await client.end().catch(() => {});
  }
}
