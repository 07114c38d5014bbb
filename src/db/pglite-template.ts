import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectPath } from "../project-root.ts";
import { noSpaceInDataDir } from "./data-dir.ts";

/**
 * A new embedded database made from a snapshot rather than from scratch. PGlite's initdb plus the migrations
 * take about 2.5 s on a small machine, the most of a first start (and of every test server, which starts on an
 * empty in-memory database). `npm run build` (run by `npm install`) writes the snapshot with the PGlite and
 * migrations installed, so it never comes from elsewhere; migrations added since are applied after it as on any
 * database. It is kept twice: as a directory, copied into a new DATA_DIR before PGlite opens it (a file copy,
 * where restoring an archive would unpack the whole database inside PGlite's memory and keep the process larger
 * long after), and as the archive PGlite restores into an in-memory database (`memory://`).
 */
export const TEMPLATE_DIR = projectPath("dist", "pglite-template");
export const TEMPLATE_FILE = projectPath("dist", "pglite-template.tar.gz");

let archive: Blob | null | undefined;

/** The snapshot for a new in-memory database, or undefined when none is built. */
export function templateArchive(): Blob | undefined {
  archive ??= existsSync(TEMPLATE_FILE) ? new Blob([readFileSync(TEMPLATE_FILE)]) : null;
  return archive ?? undefined;
}

/**
 * Copies the snapshot into `dataDir` when that holds no database yet (and a snapshot is built); answers whether
 * it did. The copies are owner-only under the umask openDataDir set, like every file of the data directory.
 */
export function seedDataDir(dataDir: string): boolean {
  const marker = "PG_VERSION";
  if (existsSync(join(dataDir, marker)) || !existsSync(join(TEMPLATE_DIR, marker))) return false;
  // PG_VERSION, by which a start tells a database from none, comes last, and a copy cut short (a full disk) is
  // taken away: a partial copy taken for a database would not open, or would open wrong
  const entries = readdirSync(TEMPLATE_DIR).filter((name) => name !== marker);
  try {
    for (const name of [...entries, marker]) cpSync(join(TEMPLATE_DIR, name), join(dataDir, name), { recursive: true });
  } catch (error) {
    for (const name of [marker, ...entries]) rmSync(join(dataDir, name), { recursive: true, force: true });
    throw noSpaceInDataDir(dataDir, error);
  }
  return true;
}

/** Where the build makes the snapshot: an empty directory. */
export function emptyTemplateDir(): string {
  rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  return TEMPLATE_DIR;
}

export function writeTemplateArchive(snapshot: Uint8Array): void {
  writeFileSync(TEMPLATE_FILE, snapshot);
}
