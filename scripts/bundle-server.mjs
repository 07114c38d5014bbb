// Part of `npm run build`, after tsc: dist/server/main.mjs and its chunks, the service and the libraries it loads
// at start, which `npm start` runs. Node.js then reads a few files instead of some hundreds of modules, each found
// by walking node_modules: a third of a second less to start. main.mjs holds what listens while the service starts
// (src/http/starting-server.ts) and imports the rest once it listens; each module the service imports only when
// configured (PostgreSQL's driver, Qdrant's and OpenAI's clients) is a chunk of its own, loaded only then (in one
// file, their packages' imports were hoisted to its top and loaded at every start). Left outside the bundle: native
// and WebAssembly packages (they load their binaries from their own directories), and what is loaded only when
// configured (PostgreSQL, Redis, Qdrant, OpenAI) or when first asked for (GraphiQL's 9 MB of assets).
import { copyFileSync, existsSync, readdirSync, rmSync } from "node:fs";
import { build } from "esbuild";

const EXTERNAL = [
  "@electric-sql/*",
  "@prisma/*",
  "prisma",
  "pglite-prisma-adapter",
  "usearch",
  "koffi",
  "fs-native-extensions",
  "@energetic-ai/*",
  "pino",
  "pg",
  "ioredis",
  "openai",
  "@qdrant/*",
  "@graphql-yoga/render-graphiql",
];

/**
 * graphql-js ships each of its modules twice, as .mjs and as .js (CommonJS). A deep import without an extension
 * (graphql-armor's `graphql/language/parser`) reached the CommonJS copy: a second graphql-js in the bundle, whose
 * GraphQLError failed our instanceof, so that every syntax error answered 500 INTERNAL. Such imports take the ES
 * module, as `graphql` itself does (mainFields below).
 * @type {import("esbuild").Plugin}
 */
const oneGraphql = {
  name: "one-graphql",
  setup(build) {
    build.onResolve({ filter: /^graphql\/.+/ }, (args) =>
      /\.m?js$/.test(args.path) ? undefined : build.resolve(`${args.path}.mjs`, { kind: args.kind, resolveDir: args.resolveDir }),
    );
  },
};

const OUT_DIR = "dist/server";
/** @type {import("esbuild").BuildOptions} */
const COMMON = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  // the build is what production runs, whatever NODE_ENV says (`npm run dev` runs the sources as it says): graphql-js
  // otherwise checks every failed instanceof of its types for a second copy of itself (the bundle holds one), reading
  // their names, which measured 8-10% of a create's CPU over REST and GraphQL alike (bench:http, alternated)
  define: { "process.env.NODE_ENV": '"production"' },
  // a package's ES module build before its CommonJS one (esbuild's default for Node.js is the other way round):
  // graphql's CommonJS build, imported by the ES modules of Yoga, its executor and Pothos, was reached through
  // esbuild's interop, a getter call at every use of one of its exports: 14 µs of a GraphQL create's CPU (profiled)
  mainFields: ["module", "main"],
  // CommonJS libraries inside an ES module bundle still call require()
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
  plugins: [oneGraphql],
};
// the code main.mjs imports once it listens (src/main.ts): one chunk beside it, found by the same relative paths
const CHUNK = /^chunk-.*\.mjs(\.map)?$/;

const started = performance.now();
// an earlier build's chunks, which nothing would import any more (none on a clean tree)
if (existsSync(OUT_DIR)) for (const name of readdirSync(OUT_DIR)) if (CHUNK.test(name)) rmSync(`${OUT_DIR}/${name}`);
// the command-line tools (package.json's keys, mcp, migrate, reindex, export and import) beside main.mjs, sharing
// its chunks: under tsx each run transpiled the service's modules again, about a second before it did anything
const CLIS = ["keys", "mcp", "migrate", "reindex", "export", "import"];
await build({
  entryPoints: { main: "src/main.ts", ...Object.fromEntries(CLIS.map((name) => [`cli-${name}`, `src/cli/${name}.ts`])) },
  outdir: OUT_DIR,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunk-[hash]",
  // main.mjs listens (/healthz answers) before Node.js compiles the rest of the service
  splitting: true,
  external: EXTERNAL,
  ...COMMON,
});
// the threads the service starts, each a file of its own beside the chunk that starts it
// (src/threads/module-thread.ts): the webhook sender's (src/webhooks/sender.ts), whose imports (Node.js' own, undici and
// the service's) are all bundled; the embedded database's (src/db/pglite-client.ts) and the vector
// index's (src/vectors/usearch-client.ts), which leave PGlite, Prisma's packages and usearch outside as the service does
const THREADS = [
  { entry: "src/webhooks/sender-thread.ts", file: "webhook-sender.mjs", external: [] },
  { entry: "src/db/pglite-thread.ts", file: "pglite-thread.mjs", external: EXTERNAL },
  { entry: "src/vectors/usearch-thread.ts", file: "usearch-thread.mjs", external: EXTERNAL },
];
for (const { entry, file, external } of THREADS) {
  await build({
    entryPoints: [entry],
    outfile: `${OUT_DIR}/${file}`,
    external,
    ...COMMON,
  });
}
// the sentence encoder's threads run this file, found next to the module that starts them (encoder-pool.ts)
copyFileSync("src/embeddings/encoder-worker.mjs", `${OUT_DIR}/encoder-worker.mjs`);
console.log(`wrote dist/server/main.mjs in ${Math.round(performance.now() - started)} ms`);
