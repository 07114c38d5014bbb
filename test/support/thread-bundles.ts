import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const BUNDLES_DIR = resolve("dist/server");
const BUNDLES = ["pglite-thread.mjs", "usearch-thread.mjs", "webhook-sender.mjs"];

function newestSource(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    }),
  );
}

/**
 * The service's thread bundles (scripts/bundle-server.mjs, run by `npm test`) when they were built after the last
 * change to src/, for the tests to start the threads from (src/threads/module-thread.ts); otherwise undefined, and
 * the tests start them from the sources, a second of CPU slower each.
 */
export function freshThreadBundles(): string | undefined {
  const paths = BUNDLES.map((file) => join(BUNDLES_DIR, file));
  if (!paths.every(existsSync)) return undefined;
  const built = Math.min(...paths.map((path) => statSync(path).mtimeMs));
  if (built >= newestSource(resolve("src"))) return BUNDLES_DIR;
  console.warn("!! dist/server's thread bundles are older than src/: the tests start the threads from the sources (run `node scripts/bundle-server.mjs`)");
  return undefined;
}
