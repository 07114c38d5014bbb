import type { Env } from "../../src/config.ts";
import { FakeQdrant } from "./fake-qdrant.ts";
import { databaseUnderTest } from "./server.ts";

export interface SearchPath {
  name: string;
  env: Env;
  /** Starts what the path needs (a fake remote, say) and returns settings for the server. */
  start?: () => Promise<Env>;
  stop?: () => Promise<void>;
}

/** Every vector index the database under test can use; the search suite runs on each. */
export function searchPaths(): SearchPath[] {
  const paths: SearchPath[] = [{ name: "exact scan", env: { VECTOR_INDEX: "exact" } }, qdrantPath()];
  if (databaseUnderTest() === "pglite") {
    paths.unshift({ name: "usearch", env: { VECTOR_INDEX: "usearch" } }, { name: "pgvector", env: { VECTOR_INDEX: "pgvector" } });
  }
  return paths;
}

/** Qdrant through the real client, against the in-process fake (no Qdrant is reachable from the tests). */
function qdrantPath(): SearchPath {
  let fake: FakeQdrant | undefined;
  return {
    name: "qdrant",
    env: {},
    async start() {
      fake = await FakeQdrant.start({ apiKey: "test-key" });
      return { QDRANT_URL: fake.url, QDRANT_API_KEY: "test-key" };
    },
    stop: async () => fake?.close(),
  };
}
