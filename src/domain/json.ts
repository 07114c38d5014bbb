export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** JSON text with object keys sorted at every level: equal records give equal text (and equal embeddings). */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Why a string cannot be stored, if it cannot: PostgreSQL text and jsonb reject NUL, and a lone UTF-16
 * surrogate has no UTF-8 form (it would come back as U+FFFD, not as sent).
 */
export function unstorableText(value: string): string | undefined {
  if (value.includes("\0")) return "must not contain NUL (\\u0000) characters";
  if (!value.isWellFormed()) return "must be valid Unicode (it contains a lone surrogate)";
  return undefined;
}

export interface JsonProblem {
  path: string;
  reason: string;
}

/** Checks that `value` is JSON PostgreSQL can store, no deeper than `maxDepth`. */
export function jsonProblem(value: unknown, maxDepth: number, path = ""): JsonProblem | undefined {
  if (value === null || typeof value === "boolean") return undefined;
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : { path, reason: "must be a finite number" };
  }
  if (typeof value === "string") {
    const reason = unstorableText(value);
    return reason ? { path, reason } : undefined;
  }
  if (maxDepth <= 0) return { path, reason: "is nested too deeply" };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = jsonProblem(value[i], maxDepth - 1, `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const keyReason = unstorableText(key);
      if (keyReason) return { path, reason: `has a key that ${keyReason}` };
      const problem = jsonProblem(item, maxDepth - 1, `${path}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return { path, reason: "must be JSON" };
}
