import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { scriptPage } from "../transport/script-page.ts";
import { HashedAssets, type StaticFile } from "../transport/static-file.ts";

/** Where the reference page's scripts are served from. */
export const REFERENCE_ASSETS = "/docs/assets/";

export interface Reference {
  /** The page at /docs: a few hundred bytes of HTML naming its scripts by content hash. */
  page: string;
  /** Each script by its file name below REFERENCE_ASSETS. */
  assets: Map<string, StaticFile>;
}

/**
 * What Scalar is told. Everything that would reach another host is off: its web fonts (the system's are used),
 * telemetry, the hosted AI agent and MCP helpers, the button that opens the document in Scalar's hosted client;
 * with no proxy set, its own request client calls this server directly. The sidebar lists every operation: there
 * are few enough.
 */
const OPTIONS = {
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  hideClientButton: true,
  defaultOpenAllTags: true,
};

let loaded: Promise<Reference> | undefined;

/**
 * The API reference at /docs: Scalar's standalone build (@scalar/api-reference), served from this server and
 * pointed at /openapi.json. Built on the first request (reading and compressing its 4 MB script takes about a
 * third of a second, off the event loop), not at start-up.
 */
export function reference(): Promise<Reference> {
  loaded ??= build();
  return loaded;
}

async function build(): Promise<Reference> {
  // the package exports no path to its browser build: it sits beside its entry point
  const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  const bundle = await readFile(join(dirname(entry), "browser", "standalone.js"));
  const files = new HashedAssets(REFERENCE_ASSETS);
  const script = "text/javascript; charset=utf-8";
  // Scalar's zod would try `Function("")` to see whether it may compile its parsers, which the page's policy refuses
  // (script-src 'self', no eval): a violation reported on every load. Told not to try, it parses as it does refused.
  const jitless = Buffer.from("globalThis.__zod_globalConfig = { jitless: true };\n");
  const [scalar, start] = await Promise.all([
    files.add("scalar", "js", script, Buffer.concat([jitless, bundle])),
    files.add("start", "js", script, `Scalar.createApiReference("#reference", ${JSON.stringify(OPTIONS)});\n`),
  ]);
  const page = scriptPage({
    title: "Memory service API reference",
    noscript: 'The reference needs JavaScript; the document it shows is at <a href="/openapi.json">/openapi.json</a>.',
    // no icon of its own: said here, rather than the browser asking for /favicon.ico (a 404 in the console)
    head: '<link rel="icon" href="data:," />',
    root: "reference",
    scripts: [scalar, start],
  });
  return { page, assets: files.byName };
}
