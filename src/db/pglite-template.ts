import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectPath } from "../project-root.ts";

/**
 * A new embedded database made from a snapshot rather than from scratch. PGlite's initdb plus the migrations
 * take about 2.5 s on a small machine, the most of a first start (and of every test server, which starts on an
 * empty in-memory database); restoring a snapshot of a freshly migrated database takes about 0.5 s. `npm run
 * build` (run by `npm install`) writes the snapshot with the PGlite and migrations installed, so it never
 * comes from elsewhere; migrations added since are applied after the restore as on any database.
 */
export const TEMPLATE_FILE = projectPath("dist", "pglite-template.tar.gz");

let cached: Blob | null | undefined;

/** The snapshot to start a new database from, or undefined when there is none (or `dataDir` is not new). */
export function templateFor(dataDir: string): Blob | undefined {
  const isNew = dataDir.startsWith("memory://") || !existsSync(join(dataDir, "PG_VERSION"));
  if (!isNew) return undefined;
  cached ??= existsSync(TEMPLATE_FILE) ? new Blob([readFileSync(TEMPLATE_FILE)]) : null;
  return cached ?? undefined;
}

export function writeTemplate(snapshot: Uint8Array): void {
  writeFileSync(TEMPLATE_FILE, snapshot);
}
