import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { freshThreadBundles } from "./test/support/thread-bundles.ts";

// Each integration file imports the whole service, about a second of a worker's time: without isolation a worker
// imports it once for all the files it runs (the pglite and postgres projects alone: 270 s against about 420 on 2 cores). The files
// share no state but modules' (each makes its own servers, databases and users).
const INTEGRATION_ISOLATE = false;

const threadBundles = freshThreadBundles();

// The integration suite runs twice: on the embedded PGlite and on the machine's PostgreSQL
// (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres; skipped loudly when unreachable).
export default defineConfig({
  resolve: {
    // graphql 16 ships ESM under "module" and CJS under "main"; Vite would give our files the first while Node
    // gives the dependencies (Pothos, Yoga) the second, and two graphql instances cannot share a schema
    alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }],
  },
  test: {
    testTimeout: 30_000,
    // the threads each test server starts, from the build when it is current (src/threads/module-thread.ts)
    env: {
      ...(threadBundles ? { SERVICE_THREADS_DIR: threadBundles } : {}),
      // the embedded databases of the tests' servers, in process (test/support/server.ts) and in children, hold a
      // few MB: PostgreSQL sets up its whole page cache as it starts, 0.15 CPU-s of each of a few hundred starts
      // at the default 32 MB
      PGLITE_SHARED_BUFFERS_MB: "8",
      // a few hundred servers are stopped with their clients' keep-alive connections open: each would wait out the
      // grace (operations.test.ts tests it)
      SHUTDOWN_IDLE_GRACE_MS: "0",
    },
    // most of an integration file's time is spent waiting on its server, a child process or a timer, so a worker
    // more than the cores keeps them busy: on 2 cores (fresh clone, the same 2 102 tests passing) 2 workers took
    // 460 s, 3 took 325 s, 4 took 332 s with a third more time inside the tests (contention). Set here, not by
    // --maxWorkers: the projects take the root config's value, not the command line's.
    maxWorkers: availableParallelism() + 1,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "pglite", include: ["test/integration/**/*.test.ts"], env: { TEST_DATABASE: "pglite" }, isolate: INTEGRATION_ISOLATE },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: ["test/integration/**/*.test.ts"],
          env: { TEST_DATABASE: "postgres" },
          isolate: INTEGRATION_ISOLATE,
          globalSetup: ["test/support/postgres-setup.ts"],
        },
      },
      { extends: true, test: { name: "browser", include: ["test/browser/**/*.test.ts"], testTimeout: 60000 } },
    ],
  },
});
