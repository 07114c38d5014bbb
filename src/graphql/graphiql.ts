import { scriptPage } from "../transport/script-page.ts";
import { HashedAssets, type StaticFile } from "../transport/static-file.ts";
import { EXAMPLE_OPERATIONS } from "./examples.ts";

/** Where GraphiQL's scripts, styles and icon are served from; the page at /graphql links them. */
export const GRAPHIQL_ASSETS = "/graphiql/";

export interface GraphiQL {
  /** The page: a few hundred bytes of HTML naming its assets by content hash. */
  page: string;
  /** Each asset by its file name below GRAPHIQL_ASSETS (`graphiql-<hash>.js`, …). */
  assets: Map<string, StaticFile>;
}

let loaded: Promise<GraphiQL> | undefined;

/**
 * GraphiQL, pointed at /graphql, with example operations and a header template for the API key, split into a small
 * page and cacheable files: @graphql-yoga/render-graphiql would inline all of them (about 9 MB) into one page that
 * no browser can cache. Everything is built on the first request, not at start-up (parsing the package takes a
 * quarter of a second), and compressed once then, off the event loop (zlib's callbacks run on libuv's pool).
 */
export function graphiql(): Promise<GraphiQL> {
  loaded ??= build();
  return loaded;
}

async function build(): Promise<GraphiQL> {
  const bundle = await import("@graphql-yoga/render-graphiql/graphiql");
  const options = {
    title: "Memory service",
    endpoint: "/graphql",
    defaultQuery: EXAMPLE_OPERATIONS,
    headers: JSON.stringify({ Authorization: "Bearer <your API key>" }, null, 2),
    shouldPersistHeaders: false,
  };
  const files = new HashedAssets(GRAPHIQL_ASSETS);
  const add = files.add.bind(files);
  const script = "text/javascript; charset=utf-8";
  const [css, icon, editorWorker, jsonWorker, graphqlWorker, app] = await Promise.all([
    add("graphiql", "css", "text/css; charset=utf-8", bundle.css),
    add("favicon", "ico", "image/x-icon", Buffer.from(bundle.favicon.replace(/^data:[^,]*;base64,/, ""), "base64")),
    add("editor.worker", "js", script, bundle.editorWorkerService),
    add("json.worker", "js", script, bundle.jsonWorker),
    add("graphql.worker", "js", script, bundle.graphqlWorker),
    add("graphiql", "js", script, bundle.js),
  ]);
  // what render-graphiql's page does inline; a file here, so that the page runs under `script-src 'self'`
  const workers = { editorWorkerService: editorWorker, json: jsonWorker, graphql: graphqlWorker };
  const start = await add(
    "start",
    "js",
    script,
    [
      `const workers = ${JSON.stringify(workers)};`,
      "self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workers[label] };",
      "addEventListener('DOMContentLoaded', () =>",
      `  YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${JSON.stringify(options)}));`,
    ].join("\n"),
  );
  const page = scriptPage({
    title: options.title,
    head: `<link rel="icon" href="${icon}" />\n    <link rel="stylesheet" href="${css}" />`,
    bodyAttributes: 'id="body" class="no-focus-outline"',
    noscript: "GraphiQL needs JavaScript.",
    root: "root",
    scripts: [start, app],
  });
  return { page, assets: files.byName };
}
