import { defineConfig } from "prisma/config";

// The CLI is used for `prisma generate` only; migrations are applied by src/db/migrate.ts
// so that the embedded database needs no schema-engine binary (see README, "Database").
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/memory" },
});
