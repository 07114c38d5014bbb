import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { newestMtime } from "../../scripts/lib/server-process.ts";

const BUNDLES_DIR = resolve("dist/server");
const BUNDLES = ["pglite-thread.mjs", "usearch-thread.mjs", "webhook-sender.mjs"];

/**
 * The service's thread bundles (scripts/bundle-server.mjs, run by `npm test`) when they were built after the last
 * change to src/, for the tests to start the threads from (src/threads/module-thread.ts); otherwise undefined, and
 * the tests start them from the sources, a second of CPU slower each.
 */
export function freshThreadBundles(): string | undefined {
  const paths = BUNDLES.map((file) => join(BUNDLES_DIR, file));
  if (!paths.every(existsSync)) return undefined;
  const built = Math.min(...paths.map((path) => statSync(path).mtimeMs));
  if (built >= newestMtime(resolve("src"))) return BUNDLES_DIR;
  console.warn("!! dist/server's thread bundles are older than src/: the tests start the threads from the sources (run `node scripts/bundle-server.mjs`)");
  return undefined;
}
