import { describe, inject } from "vitest";
import type { Env } from "../../src/config.ts";
import { FakeQdrant } from "./fake-qdrant.ts";
import { warnUntested } from "./loud.ts";
import { databaseUnderTest } from "./server.ts";

export interface SearchPath {
  name: string;
  /** The index the server must run on (its `kind`): a silent fallback to another would test that one instead. */
  kind: "usearch" | "pgvector" | "exact" | "qdrant";
  env: Env;
  /** Why the database under test cannot run this path; its suite is then skipped, loudly. */
  missing?: string;
  /** Starts what the path needs (a fake remote, say) and returns settings for the server. */
  start?: () => Promise<Env>;
  stop?: () => Promise<void>;
  /** The fake Qdrant the path runs against, once started: its recorded requests tell which index answered. */
  fake?: () => FakeQdrant | undefined;
}

/**
 * Every vector index the database under test can use. On PostgreSQL, pgvector is what production gets by
 * default (VECTOR_INDEX=auto), so that path runs with the default settings; without the extension it is
 * skipped, and said so, rather than falling back to the exact scan unseen.
 */
function searchPaths(): SearchPath[] {
  const exact: SearchPath = { name: "exact scan", kind: "exact", env: { VECTOR_INDEX: "exact" } };
  if (databaseUnderTest() === "pglite") {
    return [
      { name: "usearch", kind: "usearch", env: { VECTOR_INDEX: "usearch" } },
      { name: "pgvector", kind: "pgvector", env: { VECTOR_INDEX: "pgvector" } },
      exact,
      qdrantPath(),
    ];
  }
  const pgvector: SearchPath = { name: "pgvector (the default)", kind: "pgvector", env: {} };
  if (!inject("pgvectorAvailable")) pgvector.missing = "this PostgreSQL has no pgvector extension";
  return [pgvector, exact, qdrantPath()];
}

/** A suite per search path, `body` declaring its tests; the paths this database lacks are skipped loudly. */
export function describeSearchPaths(title: string, body: (path: SearchPath) => void): void {
  for (const path of searchPaths()) {
    const name = `${title} through ${path.name}`;
    if (path.missing) {
      warnUntested([`${name.toUpperCase()} IS SKIPPED: ${path.missing}.`, "Install pgvector on the test PostgreSQL (see README, \"Tests\")."]);
      describe.skip(name, () => body(path));
    } else {
      describe(name, () => body(path));
    }
  }
}

/** Qdrant through the real client, against the in-process fake (no Qdrant is reachable from the tests). */
function qdrantPath(): SearchPath {
  let fake: FakeQdrant | undefined;
  return {
    name: "qdrant",
    kind: "qdrant",
    env: {},
    async start() {
      fake = await FakeQdrant.start({ apiKey: "test-key" });
      return { QDRANT_URL: fake.url, QDRANT_API_KEY: "test-key" };
    },
    stop: async () => fake?.close(),
    fake: () => fake,
  };
}
