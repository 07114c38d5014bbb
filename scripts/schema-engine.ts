// Prisma's schema engine compiled to WebAssembly, driven through a driver adapter: it computes migrations and
// drift without the native engine binary, so it works offline. Used by migrate-new.ts and the drift test.
import { readFileSync } from "node:fs";
import { readMigrations, migrationsDir } from "../src/db/migrate.ts";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as wasm from "@prisma/schema-engine-wasm/schema_engine_bg";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const schemaPath = join(root, "prisma", "schema.prisma");

let initialised = false;
function initWasm(): void {
  if (initialised) return;
  const require = createRequire(import.meta.url);
  const wasmFile = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg").replace(/\.js$/, ".wasm");
  const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(wasmFile)), {
    "./schema_engine_bg.js": wasm as unknown as WebAssembly.ModuleImports,
  });
  wasm.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
  initialised = true;
}

const noFilters = { externalTables: [], externalEnums: [] };

async function withEngine<T>(
  adapter: SqlMigrationAwareDriverAdapterFactory,
  fn: (engine: wasm.SchemaEngine, files: { path: string; content: string }[]) => Promise<T>,
): Promise<T> {
  initWasm();
  const schema = readFileSync(schemaPath, "utf8");
  const engine = await wasm.SchemaEngine.new(
    { datamodels: [[schemaPath, schema]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(adapter),
  );
  try {
    return await fn(engine, [{ path: schemaPath, content: schema }]);
  } finally {
    engine.free();
  }
}

/**
 * The SQL that would bring the database behind `adapter` to prisma/schema.prisma; Prisma's
 * "-- This is an empty migration." when they already agree.
 */
export function diffDatabaseToSchema(adapter: SqlMigrationAwareDriverAdapterFactory): Promise<string> {
  return withEngine(adapter, async (engine, files) => {
    const result = await engine.diff({
      from: { tag: "schemaDatasource", files, configDir: root },
      to: { tag: "schemaDatamodel", files },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    return result.stdout ?? "";
  });
}

/** What `prisma migrate status` would report about the database's migration history. */
export function migrationHistory(adapter: SqlMigrationAwareDriverAdapterFactory) {
  const lockfile = join(migrationsDir, "migration_lock.toml");
  return withEngine(adapter, (engine) =>
    engine.diagnoseMigrationHistory({
      migrationsList: {
        baseDir: migrationsDir,
        lockfile: { path: lockfile, content: readFileSync(lockfile, "utf8") },
        shadowDbInitScript: "",
        migrationDirectories: readMigrations().map((m) => ({
          path: m.name,
          migrationFile: { path: "migration.sql", content: { tag: "ok", value: m.sql } },
        })),
      },
      optInToShadowDatabase: false,
      filters: noFilters,
    }),
  );
}

export const isEmptyMigration = (sql: string) => sql.trim() === "-- This is an empty migration.";
