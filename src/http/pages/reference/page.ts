import { createHash } from "node:crypto";
import type { McpTool } from "../../../mcp/tools.ts";
import type { Method, OpenApiDocument, Operation } from "../../openapi/types.ts";
import { anchor, escapeHtml, prose } from "./html.ts";
import { mcpSection } from "./mcp-view.ts";
import { Components, operationView } from "./operation-view.ts";
import { notes, schemaView, typeLabel } from "./schema-view.ts";

const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

const STYLE = `
  :root { --fg: #1d1d1f; --muted: #5f6368; --line: #dfe1e5; --code: #f4f4f6; --accent: #0b57d0; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); }
  a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
  code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
  code { background: var(--code); border-radius: 3px; padding: 0 .25em; }
  pre { background: var(--code); border-radius: 6px; padding: .75rem 1rem; overflow-x: auto; }
  pre code { padding: 0; }
  header.top { padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); }
  header.top h1 { margin: 0 0 .25rem; font-size: 1.5rem; }
  header.top nav a { margin-right: 1rem; }
  .layout { display: grid; grid-template-columns: 17rem minmax(0, 1fr); }
  nav.toc { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto; padding: 1rem; border-right: 1px solid var(--line); font-size: 13px; }
  nav.toc h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .25rem; }
  nav.toc ul { list-style: none; margin: 0; padding: 0; } nav.toc li { margin: .15rem 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  main { padding: 1rem 2rem 4rem; max-width: 68rem; }
  h2 { margin-top: 2.5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
  section.op { border: 1px solid var(--line); border-radius: 8px; padding: .25rem 1.25rem 1rem; margin: 1.25rem 0; }
  section.op.deprecated { border-style: dashed; }
  section.op h3 { font-size: 1.05rem; margin: .75rem 0 .25rem; }
  section.op h4 { margin: 1rem 0 .35rem; font-size: .95rem; }
  .summary { margin-top: 0; color: var(--muted); }
  .method { display: inline-block; min-width: 4.2em; text-align: center; border-radius: 4px; padding: 0 .4em; color: #fff; font: 600 12px/1.8 ui-monospace, monospace; }
  .method.get { background: #1a7f37; } .method.post { background: #0b57d0; } .method.put { background: #8a4baf; }
  .method.patch { background: #b25e00; } .method.delete { background: #c5221f; }
  .badge { background: #fce8e6; color: #a50e0e; border-radius: 4px; padding: 0 .4em; font-size: 12px; }
  .req { color: #a50e0e; font-size: 11px; }
  table { border-collapse: collapse; width: 100%; margin: .25rem 0 .5rem; font-size: 14px; }
  th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
  th { background: var(--code); font-weight: 600; }
  tr.variant td { background: #fafafa; color: var(--muted); font-style: italic; }
  .schema-name, .media, .headers { margin: .25rem 0; }
  .bounds { color: var(--muted); font-size: 13px; }
  details { margin: .35rem 0; } summary { cursor: pointer; color: var(--accent); }
  @media (max-width: 50rem) { .layout { display: block; } nav.toc { position: static; max-height: none; border-right: 0; } main { padding: 1rem; } }
`;

/** Inline style only, allowed by its hash: the page runs no script and loads nothing from anywhere. */
export const REFERENCE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

interface Entry {
  method: Method;
  path: string;
  operation: Operation;
}

function entriesByTag(document: OpenApiDocument): Map<string, Entry[]> {
  const byTag = new Map<string, Entry[]>(document.tags.map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, operation }]);
    }
  }
  return byTag;
}

function commonSections(document: OpenApiDocument): string {
  const schemes = Object.entries(document.components.securitySchemes).map(
    ([name, scheme]) => `<tr><td><code>${escapeHtml(name)}</code></td><td>${prose(scheme.description)}</td></tr>`,
  );
  const headers = Object.entries(document.components.headers).map(
    ([name, header]) =>
      `<tr id="${anchor("header", name)}"><td><code>${escapeHtml(name)}</code></td><td>${typeLabel(header.schema)}</td><td>${prose(header.description)}</td></tr>`,
  );
  const parameters = Object.values(document.components.parameters).map(
    (p) =>
      `<tr id="${anchor("header", p.name)}"><td><code>${escapeHtml(p.name)}</code></td><td>${typeLabel(p.schema)}</td><td>${notes(p.description, p.schema)}</td></tr>`,
  );
  return [
    '<h2 id="overview">Overview</h2>',
    ...document.info.description.split("\n\n").map((paragraph) => `<p>${prose(paragraph)}</p>`),
    "<p>The examples read the server's address from <code>$BASE_URL</code> and your key from <code>$API_KEY</code>.</p>",
    '<h2 id="authentication">Authentication</h2>',
    `<table><thead><tr><th>Scheme</th><th>How</th></tr></thead><tbody>${schemes.join("")}</tbody></table>`,
    '<h2 id="headers">Headers</h2>',
    "<p>Response headers several operations share:</p>",
    `<table><thead><tr><th>Header</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${headers.join("")}</tbody></table>`,
    "<p>Request headers:</p>",
    `<table><thead><tr><th>Header</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${parameters.join("")}</tbody></table>`,
  ].join("\n");
}

/**
 * The API reference at /docs: the OpenAPI document as one readable page, grouped by tag, then the MCP tools, with
 * no script.
 */
export function referencePage(document: OpenApiDocument, tools: readonly McpTool[]): string {
  const components = new Components(document);
  const byTag = entriesByTag(document);
  const descriptions = new Map(document.tags.map((tag) => [tag.name, tag.description]));
  const toc: string[] = [
    '<h2>Guide</h2><ul><li><a href="#overview">Overview</a></li><li><a href="#authentication">Authentication</a></li><li><a href="#headers">Headers</a></li></ul>',
  ];
  const sections: string[] = [];
  for (const [tag, entries] of byTag) {
    if (!entries.length) continue;
    const id = anchor("tag", tag);
    toc.push(
      `<h2><a href="#${id}">${escapeHtml(tag)}</a></h2><ul>`,
      ...entries.map(
        ({ method, path, operation }) =>
          `<li><a href="#${anchor("op", operation.operationId)}"><span class="method ${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</a></li>`,
      ),
      "</ul>",
    );
    const description = descriptions.get(tag);
    sections.push(
      `<h2 id="${id}">${escapeHtml(tag)}</h2>`,
      description ? `<p>${prose(description)}</p>` : "",
      ...entries.map(({ method, path, operation }) => operationView(method, path, operation, components)),
    );
  }
  const mcp = mcpSection(tools, components.schema);
  toc.push(mcp.toc, `<h2><a href="#schemas">Schemas</a></h2>`);
  const schemas = Object.entries(document.components.schemas).map(
    ([name, schema]) =>
      `<section class="schema" id="${anchor("schema", name)}"><h3>${escapeHtml(name)}</h3>${schemaView(schema, components.schema)}</section>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)} reference</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top">
<h1>${escapeHtml(document.info.title)} <small>${escapeHtml(document.info.version)}</small></h1>
<nav><a href="/openapi.json">OpenAPI 3.1 (JSON)</a><a href="/docs/migration">Migration guide</a><a href="/graphql">GraphiQL</a><a href="/dashboard/">Dashboard</a></nav>
</header>
<div class="layout">
<nav class="toc">${toc.join("\n")}</nav>
<main>
${commonSections(document)}
${sections.join("\n")}
${mcp.body}
<h2 id="schemas">Schemas</h2>
${schemas.join("\n")}
</main>
</div>
</body>
</html>
`;
}
