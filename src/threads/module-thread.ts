import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * The young generation of each of the service's threads, in MB. V8 grows a thread's up to 48 MB under a stream of
 * short-lived objects (inference's, the calls of a load) and keeps it at rest. Capped at 8: a process with one
 * encoder thread held 172-188 MB at rest after embedding 1 000 texts against 223-235 uncapped, and embedded them
 * no slower; the embedded database's and the vector index's threads, after a load of 100 000 memories, about 40
 * MB less at rest (bench/README.md, "Memory and disk footprint").
 */
export const THREAD_YOUNG_GENERATION_MB = 8;

/**
 * Starts a worker thread on one of the service's TypeScript modules, `source`, found beside the module `caller`
 * (its import.meta.url). The build bundles each such module into a file of its own, `bundled`, beside the chunk
 * that starts it (scripts/bundle-server.mjs). Under tsx (the sources) a worker thread does not inherit the
 * TypeScript loader on Node.js 20: it registers tsx itself, which costs it about a second of CPU to start (a
 * loader thread of its own, each module transpiled). The tests, which start a few hundred servers, run the
 * threads from the build instead: vitest.config.ts sets SERVICE_THREADS_DIR to dist/server when its bundles are
 * newer than every source file.
 */
export function startModuleThread(caller: string, files: { source: string; bundled: string }, given: WorkerOptions): Worker {
  const options = { ...given, resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB, ...given.resourceLimits } };
  if (!caller.endsWith(".ts")) return new Worker(new URL(files.bundled, caller), options);
  const bundles = process.env.SERVICE_THREADS_DIR;
  const bundled = bundles ? new URL(files.bundled, pathToFileURL(`${bundles}/`)) : undefined;
  if (bundled && existsSync(bundled)) return new Worker(bundled, options);
  const entry = JSON.stringify(new URL(files.source, caller).href);
  return new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${entry}); });`, {
    ...options,
    eval: true,
  });
}
