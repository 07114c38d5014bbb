// Part of `npm run build`, after tsc: dist/server/main.mjs, the service and the libraries it loads at start in one
// file, which `npm start` runs. Node.js then reads one file instead of some hundreds of modules, each found by
// walking node_modules: a third of a second less to start. Left outside the bundle: native and WebAssembly
// packages (they load their binaries from their own directories), and what is loaded only when configured
// (PostgreSQL, Redis, Qdrant, OpenAI) or when first asked for (GraphiQL's 9 MB of assets).
import { copyFileSync } from "node:fs";
import { build } from "esbuild";

const EXTERNAL = [
  "@electric-sql/*",
  "@prisma/*",
  "prisma",
  "pglite-prisma-adapter",
  "usearch",
  "fs-native-extensions",
  "@energetic-ai/*",
  "pino",
  "pg",
  "ioredis",
  "openai",
  "@qdrant/*",
  "@graphql-yoga/render-graphiql",
];

const started = performance.now();
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/server/main.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: EXTERNAL,
  sourcemap: true,
  logLevel: "warning",
  // CommonJS libraries inside an ES module bundle still call require()
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
});
// the sentence encoder's threads run this file, found next to the module that starts them (encoder-pool.ts)
copyFileSync("src/embeddings/encoder-worker.mjs", "dist/server/encoder-worker.mjs");
console.log(`wrote dist/server/main.mjs in ${Math.round(performance.now() - started)} ms`);
