import { gql, whenUnauthorized } from "./api.ts";
import { h, show } from "./dom.ts";
import { Notices, parseRoute, routeHash, type PageContext, type RouteName } from "./page.ts";
import { renderKeys } from "./pages/key-list.ts";
import { renderMemories } from "./pages/memory-list.ts";
import { renderMemory } from "./pages/memory.ts";
import { renderSearch } from "./pages/search.ts";
import { renderSignIn, type SignInNotice } from "./pages/signin.ts";
import { renderThreads } from "./pages/thread-list.ts";
import { ME, type User } from "./queries.ts";
import { clearKey, storedKey } from "./session.ts";

const TABS: { route: Exclude<RouteName, "memory">; label: string }[] = [
  { route: "keys", label: "Keys" },
  { route: "memories", label: "Memories" },
  { route: "search", label: "Search & recall" },
  { route: "threads", label: "Threads" },
];

const root = document.getElementById("app") ?? document.body;
let user: User | undefined;
/** A message for the next page drawn (navigation clears the old ones). */
let pending: string | undefined;

function signOut(notice: SignInNotice): void {
  clearKey();
  user = undefined;
  pending = undefined;
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  renderSignIn(root, notice, signedIn);
}

function signedIn(me: User): void {
  user = me;
  if (location.hash) render();
  else location.hash = routeHash("keys"); // hashchange draws the page
}

function navigate(hash: string, notice?: string): void {
  pending = notice;
  if (location.hash === hash) render();
  else location.hash = hash;
}

function render(): void {
  if (!storedKey()) {
    renderSignIn(root, undefined, signedIn);
    return;
  }
  const route = parseRoute(location.hash);
  const who = h("span", { class: "who muted" }, user?.handle ?? "");
  const tabs = TABS.map(({ route: name, label }) => {
    const active = name === route.name || (name === "memories" && route.name === "memory");
    return h("a", { href: routeHash(name), class: active ? "tab active" : "tab", "aria-current": active ? "page" : false }, label);
  });
  const signOutButton = h("button", { type: "button", class: "link", onclick: () => signOut({ text: "You have signed out." }) }, "Sign out");
  const noticeArea = h("div", { class: "notices" });
  const view = h("main", { class: "view", "data-page": route.name });
  show(root, h("header", { class: "top" }, h("strong", { class: "brand" }, "Memory service"), h("nav", { class: "tabs" }, ...tabs), who, signOutButton), noticeArea, view);

  const notices = new Notices(noticeArea);
  if (pending) notices.info(pending);
  pending = undefined;
  const ctx: PageContext = { view, notices, navigate };
  if (!user) {
    gql<{ me: User }>(ME)
      .then(({ me }) => {
        user = me;
        who.textContent = me.handle;
      })
      .catch(() => {}); // a 401 signs out; the page shows any other failure
  }
  const drawn =
    route.name === "keys" ? renderKeys(ctx)
    : route.name === "memories" ? renderMemories(ctx, route)
    : route.name === "memory" ? renderMemory(ctx, route.id ?? "")
    : route.name === "search" ? renderSearch(ctx, route)
    : renderThreads(ctx, route);
  drawn.catch((error: unknown) => notices.error(error));
}

whenUnauthorized((error) =>
  signOut({ text: `You have been signed out: the server no longer accepts your API key (${error.message}). Sign in with a valid key.`, warning: true }),
);
window.addEventListener("hashchange", render);
render();
