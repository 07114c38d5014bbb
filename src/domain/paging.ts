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
