import { gql } from "../api.ts";
import { field, formatDate, h, show } from "../dom.ts";
import { act, loading, submitting, type PageContext } from "../page.ts";
import { API_KEYS, CREATE_API_KEY, REVOKE_API_KEY, type ApiKey } from "../queries.ts";

/** Your keys: create one (shown once), revoke one. */
export async function renderKeys(ctx: PageContext): Promise<void> {
  const { view, notices } = ctx;
  const secretSlot = h("div");
  const listSlot = h("div");

  const reload = async () => {
    try {
      const { apiKeys } = await gql<{ apiKeys: ApiKey[] }>(API_KEYS);
      show(listSlot, keyTable(apiKeys, revoke));
    } catch (error) {
      notices.error(error, "Could not list your keys");
    }
  };

  const revoke = async (key: ApiKey, button: HTMLButtonElement) => {
    const warning = key.current ? "\n\nThis is the key you are signed in with: you will be signed out." : "";
    if (!window.confirm(`Revoke the key "${key.name}" (${key.prefix}…)? Anything using it stops working at once.${warning}`)) return;
    await act(button, notices, "Could not revoke the key", async () => {
      await gql<{ revokeApiKey: ApiKey }>(REVOKE_API_KEY, { id: key.id });
      notices.info(`Key "${key.name}" revoked.`);
    });
    await reload(); // after revoking the current key this fails with 401, which signs out
  };

  const name = h("input", { name: "name", required: true, maxlength: 100, placeholder: "e.g. laptop", autocomplete: "off" });
  const create = h("button", { type: "submit", class: "primary" }, "Create key");
  const form = h(
    "form",
    {
      class: "inline",
      onsubmit: submitting(create, notices, "Could not create the key", async () => {
        const { createApiKey } = await gql<{ createApiKey: { key: string; apiKey: ApiKey } }>(CREATE_API_KEY, { name: name.value.trim() });
        name.value = "";
        notices.clear();
        show(secretSlot, secretBox(createApiKey.key, createApiKey.apiKey.name));
        await reload();
      }),
    },
    field("New key's name", name),
    create,
  );

  loading(listSlot);
  show(view, h("h2", {}, "API keys"), h("section", { class: "card" }, form, secretSlot), listSlot);
  await reload();
}

/** The new key, once: it exists nowhere but in this element, gone when the page is left. */
function secretBox(key: string, name: string): HTMLElement {
  const value = h("input", { class: "secret-value", readonly: true, value: key, "aria-label": "The new key", "data-testid": "new-key", spellcheck: "false" });
  const status = h("span", { class: "muted", role: "status" });
  const copy = h(
    "button",
    {
      type: "button",
      onclick: () => {
        void copyText(key, value).then((copied) => {
          status.textContent = copied ? "Copied." : "Copy failed: select the key and press Ctrl+C (⌘C).";
        });
      },
    },
    "Copy",
  );
  return h(
    "div",
    { class: "secret", role: "region", "aria-label": "New key" },
    h("p", { class: "warning" }, h("strong", {}, `Key "${name}" created. Copy it now: it will not be shown again.`), " Only a hash is stored; if you lose it, revoke it and create another."),
    h("div", { class: "row" }, value, copy),
    status,
  );
}

async function copyText(text: string, input: HTMLInputElement): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // denied or unavailable: fall back to selecting the text
  }
  input.focus();
  input.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  }
}

function keyTable(keys: ApiKey[], revoke: (key: ApiKey, button: HTMLButtonElement) => Promise<void>): HTMLElement {
  if (keys.length === 0) return h("p", { class: "muted" }, "No keys.");
  const rows = keys.map((key) => {
    const button = h("button", { type: "button", class: "danger", disabled: key.revoked }, "Revoke");
    button.addEventListener("click", () => void revoke(key, button));
    return h(
      "tr",
      { class: key.revoked ? "revoked" : "", "data-key-id": key.id },
      h("td", {}, key.name, key.current ? h("span", { class: "badge" }, "this session") : null),
      h("td", {}, h("code", {}, `${key.prefix}…`)),
      h("td", {}, formatDate(key.createdAt)),
      h("td", {}, formatDate(key.lastUsedAt)),
      h("td", {}, key.revoked ? `Revoked ${formatDate(key.revokedAt)}` : "Active"),
      h("td", {}, key.revoked ? null : button),
    );
  });
  return h(
    "table",
    { class: "keys" },
    h("thead", {}, h("tr", {}, ...["Name", "Prefix", "Created", "Last used", "Status", ""].map((title) => h("th", {}, title)))),
    h("tbody", {}, ...rows),
  );
}
