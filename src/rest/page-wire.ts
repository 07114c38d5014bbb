import type { PageOf } from "../domain/paging.ts";
import { snakeCasedPick } from "./wire-shape.ts";

/** What every GraphQL page (MemoryPage, ThreadPage, …) answers beside its items. */
const PAGE_FIELDS = ["total", "limit", "offset", "hasMore"] as const;

/** A page's selection: its items as the fragment `itemFragment` has them, and the paging fields. */
export const pageSelection = (itemFragment: string): string => `items { ...${itemFragment} } ${PAGE_FIELDS.join(" ")}`;

/** A REST list: the items under `name`, then the paging fields (`has_more`, …). */
export function restPage<Name extends string, Item, Rest>(name: Name, page: PageOf<Item>, rest: (item: Item) => Rest) {
  const items = { [name]: page.items.map((item) => rest(item)) } as Record<Name, Rest[]>;
  return { ...items, ...snakeCasedPick(page, PAGE_FIELDS) };
}
