import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts a worker thread on one of the service's TypeScript modules, `source`, found beside the module `caller`
 * (its import.meta.url). The build bundles each such module into a file of its own, `bundled`, beside the chunk
 * that starts it (scripts/bundle-server.mjs). Under tsx (the sources, the tests) a worker thread does not inherit
 * the TypeScript loader on Node.js 20: it registers tsx itself.
 */
export function startModuleThread(caller: string, files: { source: string; bundled: string }, options: WorkerOptions): Worker {
  if (!caller.endsWith(".ts")) return new Worker(new URL(files.bundled, caller), options);
  const entry = JSON.stringify(new URL(files.source, caller).href);
  return new Worker(`import("tsx/esm/api").then(({ register }) => { register(); return import(${entry}); });`, {
    ...options,
    eval: true,
  });
}
