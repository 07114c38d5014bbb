import { describeError } from "./api.ts";
import { busy, h, show } from "./dom.ts";

export type RouteName = "keys" | "memories" | "memory" | "search" | "threads";

export interface Route {
  name: RouteName;
  /** The memory's id, for `memory`. */
  id?: string;
  params: URLSearchParams;
}

/** A part of the address, decoded; as it is when it is not well-formed percent-encoding (then no id it names exists). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** `#/memories?type=x`, `#/memories/<id>`, `#/keys`, … */
export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  const [first, second] = path.split("/");
  const params = new URLSearchParams(query);
  if (first === "memories" && second) return { name: "memory", id: decoded(second), params };
  if (first === "memories" || first === "search" || first === "threads") return { name: first, params };
  return { name: "keys", params };
}

export function routeHash(name: Exclude<RouteName, "memory">, params?: URLSearchParams): string {
  const query = params?.toString();
  return `#/${name}${query ? `?${query}` : ""}`;
}

export const memoryHash = (id: string) => `#/memories/${encodeURIComponent(id)}`;

/** The messages line above the page: errors from the API, confirmations. */
export class Notices {
  constructor(private readonly area: HTMLElement) {}

  error(error: unknown, prefix?: string): void {
    const message = describeError(error);
    show(this.area, h("div", { class: "notice error", role: "alert" }, prefix ? `${prefix}: ${message}` : message, this.closer()));
  }

  info(message: string): void {
    show(this.area, h("div", { class: "notice info", role: "status" }, message, this.closer()));
  }

  clear(): void {
    this.area.replaceChildren();
  }

  private closer(): HTMLButtonElement {
    return h("button", { type: "button", class: "close", "aria-label": "Dismiss", onclick: () => this.clear() }, "×");
  }
}

/** Runs what a button does with the button disabled (see busy); a failure is shown as `failure: <why>`. */
export async function act(button: HTMLButtonElement, notices: Notices, failure: string, task: () => Promise<void>): Promise<void> {
  await busy(button, async () => {
    try {
      await task();
    } catch (error) {
      notices.error(error, failure);
    }
  });
}

/** A form's submit handler: the page stays put, and the submit `button` runs `task` as `act` does. */
export function submitting(button: HTMLButtonElement, notices: Notices, failure: string, task: () => Promise<void>) {
  return (event: Event): void => {
    event.preventDefault();
    void act(button, notices, failure, task);
  };
}

export interface PageContext {
  /** Where the page draws; a new element for each visit, so a late answer for a page left draws nowhere. */
  view: HTMLElement;
  notices: Notices;
  /** Goes to `hash`; `notice` is shown on the page drawn there. */
  navigate(hash: string, notice?: string): void;
}

export function loading(view: HTMLElement): void {
  show(view, h("p", { class: "muted" }, "Loading…"));
}

/** Previous / next for a page of `total` results. */
export function pager(page: { total: number; limit: number; offset: number; hasMore: boolean }, go: (offset: number) => void): HTMLElement {
  // an offset past the end (an address typed or kept while results went away): Previous goes to the last page
  const past = page.offset >= page.total;
  const lastPage = Math.max(0, Math.ceil(page.total / page.limit) - 1) * page.limit;
  const range =
    page.total === 0 ? "none" : past ? `none here: ${page.total} in all` : `${page.offset + 1}–${Math.min(page.offset + page.limit, page.total)} of ${page.total}`;
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", disabled: page.offset === 0, onclick: () => go(past ? lastPage : Math.max(0, page.offset - page.limit)) }, "← Previous"),
    h("span", { class: "muted" }, range),
    h("button", { type: "button", disabled: !page.hasMore, onclick: () => go(page.offset + page.limit) }, "Next →"),
  );
}
