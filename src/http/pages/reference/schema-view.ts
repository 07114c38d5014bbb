import { refName, type Schema } from "../../openapi/types.ts";
import { anchor, escapeHtml, prose } from "./html.ts";

const schemaLink = (target: string): string => {
  const name = refName(target);
  return `<a href="#${anchor("schema", name)}">${escapeHtml(name)}</a>`;
};

const literal = (value: unknown): string => `<code>${escapeHtml(JSON.stringify(value))}</code>`;

/** A schema's type in a few words: `string (uuid) or null`, `array of Memory`, `one of active, archived`. */
export function typeLabel(schema: Schema): string {
  if (schema.$ref) return schemaLink(schema.$ref);
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return `one of ${schema.enum.map(literal).join(", ")}`;
  if (schema.oneOf) return schema.oneOf.map(typeLabel).join(" or ");
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 0) return "any";
  return types
    .map((type) => {
      if (type === "array") return `array of ${schema.items ? typeLabel(schema.items) : "any"}`;
      return schema.format && type === "string" ? `string (${escapeHtml(schema.format)})` : type;
    })
    .join(" or ");
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** The bounds and defaults a schema sets, as short phrases. */
export function constraints(schema: Schema): string[] {
  const found: string[] = [];
  if (schema.default !== undefined) found.push(`default ${literal(schema.default)}`);
  if (schema.minimum !== undefined && schema.maximum !== undefined) found.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) found.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) found.push(`at most ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined)
    found.push(`${schema.minLength} to ${count(schema.maxLength, "character")}`);
  else if (schema.minLength !== undefined) found.push(`at least ${count(schema.minLength, "character")}`);
  else if (schema.maxLength !== undefined) found.push(`at most ${count(schema.maxLength, "character")}`);
  if (schema.minItems !== undefined && schema.maxItems !== undefined)
    found.push(`${schema.minItems} to ${count(schema.maxItems, "item")}`);
  else if (schema.maxItems !== undefined) found.push(`at most ${count(schema.maxItems, "item")}`);
  if (schema.pattern !== undefined) found.push(`pattern <code>${escapeHtml(schema.pattern)}</code>`);
  if (schema.items) found.push(...constraints(schema.items).map((text) => `each ${text}`));
  return found;
}

/** A description, with the schema's bounds on a line of their own. */
export const notes = (description: string | undefined, schema: Schema): string => {
  const bounds = constraints(schema);
  return [description ? prose(description) : "", bounds.length ? `<span class="bounds">${bounds.join(" · ")}</span>` : ""]
    .filter(Boolean)
    .join("<br>");
};

const describe = (schema: Schema): string => notes(schema.description, schema);

const inlineObject = (schema: Schema | undefined): schema is Schema & { properties: Record<string, Schema> } =>
  schema?.properties !== undefined && schema.$ref === undefined;

/** Table rows for an object's fields, nested inline objects flattened as `a.b` and `a[].b`. */
function rows(schema: Schema & { properties: Record<string, Schema> }, prefix: string): string[] {
  const out: string[] = [];
  for (const [name, field] of Object.entries(schema.properties)) {
    const path = `${prefix}${name}`;
    const required = schema.required?.includes(name) ? ' <span class="req">required</span>' : "";
    out.push(
      `<tr><td><code>${escapeHtml(path)}</code>${required}</td><td>${typeLabel(field)}</td><td>${describe(field)}</td></tr>`,
    );
    if (inlineObject(field)) out.push(...rows(field, `${path}.`));
    const items = field.items;
    if (inlineObject(items)) out.push(...rows(items, `${path}[].`));
    items?.oneOf?.filter(inlineObject).forEach((variant, i) => {
      out.push(
        `<tr class="variant"><td colspan="3">${escapeHtml(path)}[], variant ${i + 1}${variant.description ? `: ${prose(variant.description)}` : ""}</td></tr>`,
      );
      out.push(...rows(variant, `${path}[].`));
    });
  }
  return out;
}

const table = (body: string[]): string =>
  `<table class="fields"><thead><tr><th>Field</th><th>Type</th><th>Notes</th></tr></thead><tbody>${body.join("")}</tbody></table>`;

/**
 * A schema as a reader needs it: the fields of an object as a table; the alternatives of a `oneOf` one after the
 * other. `resolve` looks a `$ref` up, so that a body's own fields show where it is used.
 */
export function schemaView(schema: Schema, resolve: (target: string) => Schema): string {
  const shown = schema.$ref ? resolve(schema.$ref) : schema;
  const intro = shown.description ? prose(shown.description) : "";
  const heading = schema.$ref
    ? `<p class="schema-name">${schemaLink(schema.$ref)}${intro ? `: ${intro}` : ""}</p>`
    : intro
      ? `<p>${intro}</p>`
      : "";
  if (inlineObject(shown)) return heading + table(rows(shown, ""));
  if (shown.oneOf) {
    const alternatives = shown.oneOf.map((alternative) => {
      const body = inlineObject(alternative)
        ? table(rows(alternative, ""))
        : alternative.type === "array" && alternative.items
          ? `<p>An array (${constraints(alternative).join(" · ")}) of ${typeLabel(alternative.items)}.</p>`
          : `<p>${typeLabel(alternative)} ${describe(alternative)}</p>`;
      return `<li>${body}</li>`;
    });
    return `${heading}<p>One of:</p><ol class="alternatives">${alternatives.join("")}</ol>`;
  }
  return `${heading}<p>${typeLabel(shown)} ${notes(undefined, shown)}</p>`;
}
