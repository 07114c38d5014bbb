import type { OpenApiDocument, Operation, Parameter, Ref, Response, Schema } from "../../openapi/types.ts";
import { refName } from "../../openapi/types.ts";
import { curlExample } from "./curl.ts";
import { anchor, escapeHtml, prose } from "./html.ts";
import { notes, schemaView, typeLabel } from "./schema-view.ts";

/** Looks `$ref`s up in the document. */
export class Components {
  constructor(private readonly document: OpenApiDocument) {}

  schema = (target: string): Schema => this.find(this.document.components.schemas, target);

  parameter = (entry: Parameter | Ref): Parameter =>
    "$ref" in entry ? this.find(this.document.components.parameters, entry.$ref) : entry;

  private find<T>(table: Record<string, T>, target: string): T {
    const found = table[refName(target)];
    if (!found) throw new Error(`The OpenAPI document has no ${target}`);
    return found;
  }
}

const json = (value: unknown): string => `<pre class="json">${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

/** Parameters; a shared one (a `$ref`) is described once, under Headers, and linked. */
function parametersTable(parameters: (Parameter | Ref)[], components: Components): string {
  if (!parameters.length) return "";
  const body = parameters.map((entry) => {
    const p = components.parameter(entry);
    const required = p.required ? ' <span class="req">required</span>' : "";
    const text =
      "$ref" in entry
        ? `See <a href="#${anchor("header", p.name)}">${escapeHtml(p.name)}</a> under Headers.`
        : notes(p.description, p.schema);
    return `<tr><td><code>${escapeHtml(p.name)}</code>${required}</td><td>${p.in}</td><td>${typeLabel(p.schema)}</td><td>${text}</td></tr>`;
  });
  return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Notes</th></tr></thead><tbody>${body.join("")}</tbody></table>`;
}

/** Response headers: shared ones by name (described once, under Headers); a route's own with their values. */
function headerList(headers: Response["headers"]): string {
  const items = Object.entries(headers ?? {}).map(([name, entry]) => {
    if ("$ref" in entry) return `<a href="#${anchor("header", name)}"><code>${escapeHtml(name)}</code></a>`;
    const value = entry.schema.const !== undefined ? `: ${escapeHtml(String(entry.schema.const))}` : "";
    return `<code title="${escapeHtml(entry.description)}">${escapeHtml(name)}${value}</code>`;
  });
  return items.join(", ");
}

/** A response; an error's body schema is only named (linked), not spelled out again for every status. */
function responseView(status: string, response: Response, components: Components): string {
  const parts = [`<h4>Response ${escapeHtml(status)}</h4>`, `<p>${prose(response.description)}</p>`];
  if (response.headers) parts.push(`<p class="headers">Headers: ${headerList(response.headers)}</p>`);
  for (const [type, media] of Object.entries(response.content ?? {})) {
    const body = status.startsWith("2") ? schemaView(media.schema, components.schema) : `<p>${typeLabel(media.schema)}</p>`;
    parts.push(`<p class="media"><code>${escapeHtml(type)}</code></p>`, body);
    if (media.example !== undefined) parts.push(`<details><summary>Example</summary>${json(media.example)}</details>`);
  }
  return parts.join("");
}

function errorsTable(errors: [string, Response][]): string {
  if (!errors.length) return "";
  const body = errors.map(
    ([status, response]) =>
      `<tr><td>${escapeHtml(status)}</td><td>${prose(response.description)}</td><td>${headerList(response.headers)}</td></tr>`,
  );
  return `<h4>Errors</h4><p>Body: <a href="#${anchor("schema", "Error")}">Error</a>.</p><table><thead><tr><th>Status</th><th>When</th><th>Headers</th></tr></thead><tbody>${body.join("")}</tbody></table>`;
}

/** One operation: what it does, its inputs, its answers and a curl command. */
export function operationView(method: string, path: string, operation: Operation, components: Components): string {
  const parameters = operation.parameters ?? [];
  const responses = Object.entries(operation.responses);
  const security = operation.security;
  const access =
    security === undefined
      ? ""
      : security.length === 0
        ? "No API key needed."
        : "Authentication is optional here: see above for when it is needed.";
  const parts = [
    `<section class="op${operation.deprecated ? " deprecated" : ""}" id="${anchor("op", operation.operationId)}">`,
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(path)}</code>`,
    operation.deprecated ? ' <span class="badge">deprecated</span>' : "",
    `</h3><p class="summary">${prose(operation.summary)}</p>`,
    operation.description ? `<p>${prose(operation.description)}</p>` : "",
    access ? `<p class="auth">${access}</p>` : "",
    parametersTable(parameters, components),
  ];
  const body = operation.requestBody?.content["application/json"];
  if (body) {
    parts.push(
      '<h4>Request body</h4><p class="media"><code>application/json</code></p>',
      schemaView(body.schema, components.schema),
    );
    if (body.example !== undefined) parts.push(`<details><summary>Example</summary>${json(body.example)}</details>`);
    for (const example of Object.values(body.examples ?? {})) {
      parts.push(`<details><summary>Example: ${prose(example.summary)}</summary>${json(example.value)}</details>`);
    }
  }
  for (const [status, response] of responses.filter(([status]) => status.startsWith("2")))
    parts.push(responseView(status, response, components));
  const errors = responses.filter(([status]) => !status.startsWith("2"));
  // the service routes describe their own error bodies; REST errors are all the Error schema
  const restErrors = errors.every(
    ([, response]) => response.content?.["application/json"]?.schema.$ref === "#/components/schemas/Error",
  );
  if (restErrors) parts.push(errorsTable(errors));
  else for (const [status, response] of errors) parts.push(responseView(status, response, components));
  parts.push(
    `<h4>Example</h4><pre class="curl">${escapeHtml(curlExample(method, path, operation, parameters.map(components.parameter)))}</pre>`,
    "</section>",
  );
  return parts.join("");
}
