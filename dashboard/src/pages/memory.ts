import { gql } from "../api.ts";
import { field, formatDate, h, parseTags, show } from "../dom.ts";
import { act, loading, routeHash, submitting, type PageContext } from "../page.ts";
import { DELETE_MEMORY, MEMORY, UPDATE_MEMORY, type Memory } from "../queries.ts";
import { contentEditor, parseObject } from "./memory-form.ts";

/** One memory: view and edit it, archive or restore it, delete it. */
export async function renderMemory(ctx: PageContext, id: string): Promise<void> {
  const { view, notices } = ctx;
  loading(view);
  try {
    const { memory } = await gql<{ memory: Memory | null }>(MEMORY, { id });
    if (!memory) {
      show(view, h("h2", {}, "Memory not found"), h("p", {}, "There is no memory of yours with this id."), backLink());
      return;
    }
    draw(ctx, memory);
  } catch (error) {
    view.replaceChildren(backLink());
    notices.error(error, "Could not load the memory");
  }
}

const backLink = () => h("p", {}, h("a", { href: routeHash("memories") }, "← All memories"));

function draw(ctx: PageContext, memory: Memory): void {
  const { view, notices } = ctx;
  const update = async (input: Record<string, unknown>, done: string) => {
    const { updateMemory } = await gql<{ updateMemory: Memory }>(UPDATE_MEMORY, { id: memory.id, input });
    draw(ctx, updateMemory);
    notices.info(done);
  };

  const editor = contentEditor(memory);
  const type = h("input", { name: "type", value: memory.type ?? "", autocomplete: "off" });
  const tags = h("input", { name: "tags", value: memory.tags.join(", "), autocomplete: "off" });
  const metadata = h("textarea", { name: "metadata", rows: 4, spellcheck: "false" });
  metadata.value = JSON.stringify(memory.metadata, null, 2);
  const save = h("button", { type: "submit", class: "primary" }, "Save changes");
  const form = h(
    "form",
    {
      class: "card",
      onsubmit: submitting(save, notices, "Could not save", async () => {
        const input = {
          ...editor.read(),
          type: type.value.trim() || null,
          tags: parseTags(tags.value),
          metadata: parseObject(metadata.value, "Metadata"),
        };
        await update(input, "Changes saved.");
      }),
    },
    editor.element,
    h("div", { class: "row" }, field("Type", type, "Empty clears it"), field("Tags", tags, "Comma-separated")),
    field("Metadata (JSON object)", metadata),
    h("div", { class: "row" }, save),
  );

  const archive = h("button", { type: "button" }, memory.isArchived ? "Restore (unarchive)" : "Archive");
  archive.addEventListener("click", () => {
    void act(archive, notices, "Could not change the archive state", () =>
      update({ isArchived: !memory.isArchived }, memory.isArchived ? "Memory restored." : "Memory archived."),
    );
  });
  const remove = h("button", { type: "button", class: "danger" }, "Delete");
  remove.addEventListener("click", () => {
    if (!window.confirm("Delete this memory for good?")) return;
    void act(remove, notices, "Could not delete the memory", async () => {
      await gql<{ deleteMemory: boolean }>(DELETE_MEMORY, { id: memory.id });
      ctx.navigate(routeHash("memories"), "Memory deleted.");
    });
  });

  show(
    view,
    backLink(),
    h("div", { class: "heading" }, h("h2", {}, "Memory"), memory.isArchived ? h("span", { class: "badge" }, "archived") : null),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Id"),
      h("dd", {}, h("code", {}, memory.id)),
      h("dt", {}, "Thread"),
      h("dd", {}, memory.thread ? memory.thread.title : "—"),
      h("dt", {}, "Created"),
      h("dd", {}, formatDate(memory.createdAt)),
      h("dt", {}, "Updated"),
      h("dd", {}, formatDate(memory.updatedAt)),
    ),
    form,
    h("div", { class: "row actions" }, archive, remove),
  );
}
