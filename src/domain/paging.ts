import { invalid } from "../errors.ts";

/** The most items one page (list, search, recall, threads) may hold; fixed by the API specification. */
export const MAX_PAGE_SIZE = 100;

export interface Page {
  limit: number;
  offset: number;
}

export interface PageOf<T> extends Page {
  items: T[];
  total: number;
  hasMore: boolean;
}

export function checkPage(limit: number | null | undefined, offset: number | null | undefined, defaultLimit: number): Page {
  const page = { limit: limit ?? defaultLimit, offset: offset ?? 0 };
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_PAGE_SIZE) {
    throw invalid("limit", `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  if (!Number.isInteger(page.offset) || page.offset < 0) throw invalid("offset", "must be a whole number of 0 or more");
  return page;
}

/** The page asked for, or undefined where checkPage refuses it. */
export function validPage(limit: number | null | undefined, offset: number | null | undefined, defaultLimit: number): Page | undefined {
  try {
    return checkPage(limit, offset, defaultLimit);
  } catch {
    return undefined;
  }
}

export const pageOf = <T>(items: T[], total: number, page: Page): PageOf<T> => ({
  items,
  total,
  ...page,
  hasMore: page.offset + items.length < total,
});

/** What a list reads for a page: one row more than it holds, so that whether more follow is known from the rows. */
export const readAhead = (page: Page): number => page.limit + 1;

/**
 * A page from the rows read for it (`readAhead` of them, in order) and its total counted apart, by another
 * statement or from a cache: writes committed between the two are reconciled so that a page agrees with itself.
 * `hasMore` says whether a row followed the page; `total` is at least the rows before the page and in it, and on
 * the last page exactly that (at least `offset` rows came before it, as its rows were found past them).
 */
export function pageFrom<T>(rows: T[], counted: number, page: Page): PageOf<T> {
  const items = rows.slice(0, page.limit);
  const hasMore = rows.length > page.limit;
  const seen = page.offset + items.length;
  const total = hasMore ? Math.max(counted, seen + 1) : items.length > 0 || page.offset === 0 ? seen : Math.min(counted, page.offset);
  return { items, total, ...page, hasMore };
}
