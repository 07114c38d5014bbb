import type { Operation, Parameter } from "../../openapi/types.ts";

/** A value in single quotes for a POSIX shell. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A curl command for an operation, with the example values of its parameters and body. The base URL and the key
 * come from the shell ($BASE_URL, $API_KEY), so the command works against any server once those are set.
 */
export function curlExample(method: string, path: string, operation: Operation, parameters: Parameter[]): string {
  let target = path;
  const query = new URLSearchParams();
  for (const parameter of parameters) {
    if (parameter.example === undefined) continue;
    const value = String(parameter.example);
    if (parameter.in === "path") target = target.replace(`{${parameter.name}}`, encodeURIComponent(value));
    else if (parameter.in === "query") query.set(parameter.name, value);
  }
  const search = query.toString() ? `?${query}` : "";
  const lines = [`curl${method === "get" ? "" : ` -X ${method.toUpperCase()}`} "$BASE_URL${target}${search}"`];
  // the document's default security is the API key; an operation of its own names it when it takes one
  const takesKey = operation.security === undefined || operation.security.some((requirement) => "bearerAuth" in requirement);
  if (takesKey) lines.push(`-H "Authorization: Bearer $API_KEY"`);
  const body = operation.requestBody?.content["application/json"];
  const example = body?.example ?? Object.values(body?.examples ?? {})[0]?.value;
  if (example !== undefined) {
    lines.push(`-H "Content-Type: application/json"`);
    lines.push(`-d ${shellQuote(JSON.stringify(example))}`);
  }
  return lines.join(" \\\n  ");
}
