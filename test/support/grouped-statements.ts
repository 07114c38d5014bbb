import { vi } from "vitest";
import type { Sql } from "../../src/db/database.ts";

/**
 * Watches the statements of a kind that a grouping sends (StatementGroups): `size` tells whether a statement is
 * one (undefined: not watched) and how many requests it carries. `delayMs` holds each back that long first (a busy
 * database, the case grouping is for); `fail` fails those of some sizes.
 */
export function watchGroups(
  sql: Sql,
  size: (text: string, params: readonly unknown[] | undefined) => number | undefined,
  { delayMs = 0, fail }: { delayMs?: number; fail?: (size: number) => boolean } = {},
): { sizes: number[]; restore(): void } {
  const query = sql.query.bind(sql);
  const sizes: number[] = [];
  const spy = vi.spyOn(sql, "query").mockImplementation(async (text, params) => {
    const n = size(text, params);
    if (n !== undefined) {
      sizes.push(n);
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (fail?.(n)) throw new Error("simulated failure of a grouped statement");
    }
    return query(text, params);
  });
  return { sizes, restore: () => spy.mockRestore() };
}
