import { defineConfig } from "vitest/config";

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
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "pglite", include: ["test/integration/**/*.test.ts"], env: { TEST_DATABASE: "pglite" } },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: ["test/integration/**/*.test.ts"],
          env: { TEST_DATABASE: "postgres" },
          globalSetup: ["test/support/postgres-setup.ts"],
        },
      },
      { extends: true, test: { name: "browser", include: ["test/browser/**/*.test.ts"], testTimeout: 60000 } },
    ],
  },
});
