import { invalid } from "../errors.ts";
import { isPlainObject } from "../domain/json.ts";
import type { QueryInputs } from "./query-params.ts";

/**
 * The fields the legacy API had and the current one dropped (spec, "Renamed or removed fields of the legacy
 * route"). Old clients still send them, also to the record routes `/api/v1/memories/{id}` that they share with
 * current ones: they are accepted so that those clients keep working, never used for scoping (the API key
 * decides whose memories these are), and the answer's X-API-Warn says what was ignored.
 */
export const SCOPE_FIELDS = ["workspaceId", "userId"] as const;
export const TTL_FIELDS = ["ttlMinutes", "ttl_expires_at"] as const;

/** What a request said that was ignored or renamed, for X-API-Warn. */
export class LegacyNotes {
  private readonly scoped = new Set<string>();
  private readonly expired = new Set<string>();
  private readonly renames: string[] = [];

  /** The scope parameters present in the query string (which `query.only` must have allowed). */
  scopeParams(query: QueryInputs): this {
    return this.scope(SCOPE_FIELDS.filter((name) => query.string(name) !== undefined));
  }

  scope(names: readonly string[]): this {
    names.forEach((name) => this.scoped.add(name));
    return this;
  }

  ttl(names: readonly string[]): this {
    names.forEach((name) => this.expired.add(name));
    return this;
  }

  renamed(from: string, to: string): this {
    this.renames.push(`${from} is now ${to}`);
    return this;
  }

  /** The X-API-Warn header, after `prefix` (a deprecated route's own warning), or nothing when all was current. */
  headers(prefix?: string): { headers?: Record<string, string> } {
    const notes = [
      listed(this.scoped, "ignored: the API key decides whose memories these are"),
      listed(this.expired, "no longer supported and ignored"),
      ...this.renames,
    ].filter((note): note is string => note !== undefined);
    if (notes.length === 0) return {};
    return { headers: { "x-api-warn": [prefix, ...notes].filter(Boolean).join("; ") } };
  }
}

function listed(names: Set<string>, what: string): string | undefined {
  if (names.size === 0) return undefined;
  return `${[...names].join(" and ")} ${names.size > 1 ? "are" : "is"} ${what}`;
}

/**
 * A record route's body without the legacy fields: scope and TTL fields dropped, `kind` read as `type` (both
 * given and different is an error: which one was meant cannot be told).
 */
export function withoutLegacyFields(body: unknown, notes: LegacyNotes): unknown {
  if (!isPlainObject(body)) return body;
  const present = (names: readonly string[]) => names.filter((name) => Object.hasOwn(body, name));
  const scope = present(SCOPE_FIELDS);
  const ttl = present(TTL_FIELDS);
  const hasKind = Object.hasOwn(body, "kind");
  if (!scope.length && !ttl.length && !hasKind) return body;
  const { workspaceId: _w, userId: _u, ttlMinutes: _t, ttl_expires_at: _e, kind, ...current } = body;
  notes.scope(scope).ttl(ttl);
  if (hasKind) {
    if (Object.hasOwn(current, "type") && current.type !== kind) throw invalid("kind", "and type are both given and differ (kind is the old name of type)");
    current.type = kind;
    notes.renamed("kind", "type");
  }
  return current;
}
