import { ApiError, describeError, gql } from "../api.ts";
import { busy, field, h, show } from "../dom.ts";
import { ME, type User } from "../queries.ts";
import { storeKey } from "../session.ts";

export interface SignInNotice {
  text: string;
  /** Shown as a warning: the user was signed out against their will. */
  warning?: boolean;
}

/** The sign-in form; the key is checked with `me` before it is kept. */
export function renderSignIn(root: HTMLElement, notice: SignInNotice | undefined, signedIn: (user: User) => void): void {
  const input = h("input", { type: "password", name: "key", autocomplete: "off", spellcheck: "false", required: true, placeholder: "msk_…" });
  const button = h("button", { type: "submit", class: "primary" }, "Sign in");
  const message = h("div", { role: "alert" });
  if (notice) show(message, h("div", { class: notice.warning ? "notice error" : "notice info" }, notice.text));

  const form = h(
    "form",
    {
      class: "card signin",
      onsubmit: (event) => {
        event.preventDefault();
        const key = input.value.trim();
        if (!key) return;
        void busy(button, async () => {
          try {
            const { me } = await gql<{ me: User }>(ME, {}, { key });
            storeKey(key);
            input.value = "";
            signedIn(me);
          } catch (error) {
            const text =
              error instanceof ApiError && error.unauthorized ? "That API key is not valid, or it has been revoked." : describeError(error);
            show(message, h("div", { class: "notice error" }, text));
          }
        });
      },
    },
    h("h1", {}, "Memory service"),
    h("p", { class: "muted" }, "Sign in with one of your API keys."),
    message,
    field("API key", input),
    button,
    h("p", { class: "small muted" }, "The key stays in this browser tab (session storage) until you sign out or close the tab, and is sent only to this server."),
  );
  show(root, h("main", { class: "center" }, form));
  input.focus();
}
