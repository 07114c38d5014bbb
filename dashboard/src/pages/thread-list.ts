import { gql } from "../api.ts";
import { field, formatDate, h, show } from "../dom.ts";
import { loading, pager, routeHash, type PageContext, type Route } from "../page.ts";
import { THREAD_STATUSES, THREADS, UPDATE_THREAD, type Page, type Thread, type ThreadStatus } from "../queries.ts";

const PAGE_SIZE = 20;

const isStatus = (value: string | null): value is ThreadStatus => THREAD_STATUSES.some((status) => status === value);

/** Your threads, by status; each one's status can be changed in place. */
export async function renderThreads(ctx: PageContext, route: Route): Promise<void> {
  const { view, notices, navigate } = ctx;
  const wanted = route.params.get("status");
  const status = isStatus(wanted) ? wanted : undefined;
  const offset = Math.max(0, Number.parseInt(route.params.get("offset") ?? "0", 10) || 0);
  const go = (nextStatus: string, nextOffset: number) => {
    const params = new URLSearchParams();
    if (nextStatus) params.set("status", nextStatus);
    if (nextOffset) params.set("offset", String(nextOffset));
    navigate(routeHash("threads", params));
  };

  const filter = h(
    "select",
    { name: "status", "aria-label": "Filter by status", onchange: (event) => go((event.target as HTMLSelectElement).value, 0) },
    h("option", { value: "", selected: !status }, "Any status"),
    ...THREAD_STATUSES.map((value) => h("option", { value, selected: value === status }, value)),
  );
  const listSlot = h("div");
  loading(listSlot);
  show(view, h("h2", {}, "Threads"), h("section", { class: "card inline" }, field("Status", filter)), listSlot);

  try {
    const { threads } = await gql<{ threads: Page<Thread> }>(THREADS, { status: status ?? null, limit: PAGE_SIZE, offset });
    show(listSlot, threads.items.length ? threadTable(threads.items, ctx) : h("p", { class: "muted" }, "No threads."), pager(threads, (next) => go(status ?? "", next)));
  } catch (error) {
    listSlot.replaceChildren();
    notices.error(error, "Could not list threads");
  }
}

function threadTable(threads: Thread[], ctx: PageContext): HTMLElement {
  return h(
    "table",
    { class: "threads" },
    h("thead", {}, h("tr", {}, ...["Title", "Memories", "Updated", "Status"].map((title) => h("th", {}, title)))),
    h("tbody", {}, ...threads.map((thread) => threadRow(thread, ctx))),
  );
}

function threadRow(thread: Thread, ctx: PageContext): HTMLElement {
  let current = thread.status;
  const select = h(
    "select",
    { name: "thread-status", "aria-label": `Status of ${thread.title}` },
    ...THREAD_STATUSES.map((value) => h("option", { value, selected: value === current }, value)),
  );
  const updated = h("td", {}, formatDate(thread.updatedAt));
  select.addEventListener("change", () => {
    const next = select.value;
    if (!isStatus(next)) return;
    select.disabled = true;
    gql<{ updateThread: Thread }>(UPDATE_THREAD, { id: thread.id, input: { status: next } })
      .then(({ updateThread }) => {
        current = updateThread.status;
        updated.textContent = formatDate(updateThread.updatedAt);
        ctx.notices.info(`"${thread.title}" is now ${current}.`);
      })
      .catch((error: unknown) => {
        select.value = current;
        ctx.notices.error(error, "Could not change the status");
      })
      .finally(() => (select.disabled = false));
  });
  return h(
    "tr",
    { "data-thread-id": thread.id },
    h("td", {}, h("strong", {}, thread.title), thread.description ? h("div", { class: "small muted" }, thread.description) : null),
    h("td", {}, thread.memoryCount),
    updated,
    h("td", {}, select),
  );
}
