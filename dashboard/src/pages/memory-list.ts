import { gql } from "../api.ts";
import { field, formatDate, h, parseTags, show, tagList, truncate } from "../dom.ts";
import { loading, memoryHash, pager, routeHash, submitting, type PageContext, type Route } from "../page.ts";
import { CREATE_MEMORY, MEMORIES, type Memory, type MemoryFilter, type Page } from "../queries.ts";
import { contentEditor } from "./memory-form.ts";

const PAGE_SIZE = 20;

/** Filters and page live in the address (`#/memories?type=…&tags=…&archived=…&offset=…`), so Back keeps them. */
export async function renderMemories(ctx: PageContext, route: Route): Promise<void> {
  const { view, notices, navigate } = ctx;
  const params = route.params;
  const offset = Math.max(0, Number.parseInt(params.get("offset") ?? "0", 10) || 0);
  const filter: MemoryFilter = {};
  const type = params.get("type")?.trim();
  const tags = parseTags(params.get("tags") ?? "");
  const archived = params.get("archived") ?? "live";
  if (type) filter.type = type;
  if (tags.length) filter.tags = tags;
  if (archived !== "all") filter.isArchived = archived === "archived";

  const go = (next: URLSearchParams) => navigate(routeHash("memories", next));
  const typeInput = h("input", { name: "type", value: type ?? "", placeholder: "any", autocomplete: "off" });
  const tagsInput = h("input", { name: "tags", value: tags.join(", "), placeholder: "a, b", autocomplete: "off" });
  const archivedSelect = h(
    "select",
    { name: "archived" },
    ...[["live", "Live only"], ["archived", "Archived only"], ["all", "Live and archived"]].map(([value = "", label]) =>
      h("option", { value, selected: value === archived }, label),
    ),
  );
  const filters = h(
    "form",
    {
      class: "inline filters",
      onsubmit: (event) => {
        event.preventDefault();
        const next = new URLSearchParams();
        if (typeInput.value.trim()) next.set("type", typeInput.value.trim());
        if (parseTags(tagsInput.value).length) next.set("tags", parseTags(tagsInput.value).join(","));
        next.set("archived", archivedSelect.value);
        go(next);
      },
    },
    field("Type", typeInput),
    field("Tags (all of)", tagsInput),
    field("Show", archivedSelect),
    h("button", { type: "submit" }, "Apply"),
  );

  const listSlot = h("div");
  const newButton = h("button", { type: "button", class: "primary" }, "New memory");
  const createSlot = h("div");
  newButton.addEventListener("click", () => {
    newButton.hidden = true;
    show(createSlot, createForm(ctx, () => ((newButton.hidden = false), createSlot.replaceChildren())));
  });

  loading(listSlot);
  show(view, h("div", { class: "heading" }, h("h2", {}, "Memories"), newButton), createSlot, h("section", { class: "card" }, filters), listSlot);

  try {
    const { memories } = await gql<{ memories: Page<Memory> }>(MEMORIES, { filter, limit: PAGE_SIZE, offset });
    const toOffset = (value: number) => {
      const next = new URLSearchParams(params);
      next.set("offset", String(value));
      go(next);
    };
    show(listSlot, memories.items.length ? memoryTable(memories.items) : h("p", { class: "muted" }, "No memories match."), pager(memories, toOffset));
  } catch (error) {
    listSlot.replaceChildren();
    notices.error(error, "Could not list memories");
  }
}

function memoryTable(items: Memory[]): HTMLElement {
  return h(
    "table",
    { class: "memories" },
    h("thead", {}, h("tr", {}, ...["Content", "Type", "Tags", "Created", ""].map((title) => h("th", {}, title)))),
    h(
      "tbody",
      {},
      ...items.map((memory) =>
        h(
          "tr",
          { class: memory.isArchived ? "archived" : "", "data-memory-id": memory.id },
          h("td", {}, h("a", { href: memoryHash(memory.id) }, truncate(memory.content, 160))),
          h("td", {}, memory.type ?? "—"),
          h("td", {}, tagList(memory.tags)),
          h("td", {}, formatDate(memory.createdAt)),
          h("td", {}, memory.isArchived ? h("span", { class: "badge" }, "archived") : null),
        ),
      ),
    ),
  );
}

function createForm(ctx: PageContext, close: () => void): HTMLElement {
  const editor = contentEditor(null);
  const type = h("input", { name: "type", placeholder: "e.g. preference", autocomplete: "off" });
  const tags = h("input", { name: "tags", placeholder: "a, b", autocomplete: "off" });
  const save = h("button", { type: "submit", class: "primary" }, "Save memory");
  return h(
    "form",
    {
      class: "card",
      onsubmit: submitting(save, ctx.notices, "Could not save the memory", async () => {
        const input: Record<string, unknown> = { ...editor.read(), tags: parseTags(tags.value) };
        if (type.value.trim()) input.type = type.value.trim();
        const { createMemory } = await gql<{ createMemory: Memory }>(CREATE_MEMORY, { input });
        ctx.navigate(memoryHash(createMemory.id), "Memory saved.");
      }),
    },
    h("h3", {}, "New memory"),
    editor.element,
    h("div", { class: "row" }, field("Type", type), field("Tags", tags)),
    h("div", { class: "row" }, save, h("button", { type: "button", onclick: close }, "Cancel")),
  );
}
