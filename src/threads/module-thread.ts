import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts a worker thread on one of the service's TypeScript modules, `source`, found beside the module `caller`
 * (its import.meta.url). The build bundles each such module into a file of its own, `bundled`, beside the chunk
 * that starts it (scripts/bundle-server.mjs). Under tsx (the sources) a worker thread does not inherit the
 * TypeScript loader on Node.js 20: it registers tsx itself, which costs it about a second of CPU to start (a
 * loader thread of its own, each module transpiled). The tests, which start a few hundred servers, run the
 * threads from the build instead: vitest.config.ts sets SERVICE_THREADS_DIR to dist/server when its bundles are
 * newer than every source file.
 */
export function startModuleThread(caller: string, files: { source: string; bundled: string }, options: WorkerOptions): Worker {
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
