/**
 * The layers of src/, highest first; a module may import its own layer and the layers below it, never one above,
 * and no import cycle is allowed anywhere. docs/ARCHITECTURE.md draws the picture; test/unit/layers.test.ts runs
 * these rules with `npm test` (by hand: `npx depcruise src`).
 */
const LAYERS = [
  { name: "entry", path: "^src/(main\\.ts$|cli/)", why: "processes: the server's main and the CLI commands" },
  { name: "app", path: "^src/app\\.ts$", why: "the composition root: wires every layer below" },
  {
    name: "server",
    path: "^src/(server\\.ts$|http/|control/|docs/)",
    why: "the path table, pages, documentation (/openapi.json, /docs), metrics and the CLI's control socket",
  },
  { name: "mcp", path: "^src/mcp/", why: "MCP tools, which run the REST routes" },
  { name: "rest", path: "^src/rest/", why: "REST routes, their dispatch, wire shapes and error answers; the OpenAPI description of them" },
  { name: "graphql", path: "^src/graphql/", why: "schema, Yoga, the /graphql endpoint, GraphQL error answers, the request context" },
  { name: "auth", path: "^src/auth/", why: "request to principal: API keys and rate limits" },
  { name: "transport", path: "^src/transport/", why: "request and response plumbing shared by every protocol" },
  { name: "domain", path: "^src/(domain|events|webhooks)/", why: "services and rules; the outbox relay and webhook deliveries they start" },
  { name: "search", path: "^src/(vectors|embeddings)/", why: "vector indexes and embedders" },
  { name: "db", path: "^src/(db|generated)/", why: "the database: PGlite or PostgreSQL, migrations, Prisma's client; Redis' clients" },
  { name: "base", path: "^src/(config\\.ts|logger\\.ts|errors\\.ts|project-root\\.ts|text/|threads/)", why: "settings, logging, error codes, text analysis, starting worker threads" },
];

const upward = LAYERS.flatMap((lower, i) =>
  LAYERS.slice(0, i).map((higher) => ({
    name: `${lower.name}-not-up-to-${higher.name}`,
    comment: `${lower.name} (${lower.why}) must not import ${higher.name} (${higher.why}), which sits above it`,
    severity: "error",
    from: { path: lower.path, ...(lower.pathNot ? { pathNot: lower.pathNot } : {}) },
    to: { path: higher.path, ...(higher.pathNot ? { pathNot: higher.pathNot } : {}) },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "modules that import each other, directly or not (Prisma's generated client is its own affair)",
      severity: "error",
      from: { pathNot: "^src/generated/" },
      to: { circular: true },
    },
    {
      name: "no-graphql-below-graphql",
      comment: "graphql-js is the graphql layer's affair: the layers below it (the domain, errors above all) know no protocol",
      severity: "error",
      from: { path: LAYERS.slice(LAYERS.findIndex((layer) => layer.name === "auth")).map((layer) => layer.path).join("|") },
      to: { path: "node_modules/graphql/" },
    },
    {
      name: "client-stands-alone",
      comment: "the client package (src/client) is published on its own: it imports nothing else of src/, nor is imported",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/", pathNot: "^src/client/" },
    },
    {
      name: "nothing-imports-client",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/client/" },
      to: { path: "^src/client/" },
    },
    {
      name: "every-module-in-a-layer",
      comment: "a new folder of src/ takes its place in LAYERS before it is used",
      severity: "error",
      from: { path: "^src/", pathNot: `(${LAYERS.map((layer) => layer.path).join("|")}|^src/client/)` },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.d\\.ts$|^src/embeddings/encoder-worker\\.mjs$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
