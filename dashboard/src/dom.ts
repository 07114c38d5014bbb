// Every element is built here, and every string becomes a text node or an attribute value: user data never
// reaches innerHTML.

export type Child = Node | string | number | null | undefined | false;
type Handler = (event: Event) => void;
export type Props = Record<string, string | number | boolean | null | undefined | Handler>;

/** An element: `on*` props are listeners, `value`/`checked` set the property, others are attributes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === "value" && typeof value === "string" && "value" in element) element.value = value;
    else if (name === "checked" && element instanceof HTMLInputElement) element.checked = value === true;
    else if (value === true) element.setAttribute(name, "");
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `parent` shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "never";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** At most `max` UTF-16 units, an ellipsis last; never half of a character outside the BMP (an emoji). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // a high surrogate, whose low half the cut would drop
  return `${text.slice(0, end)}…`;
}

/** Comma-separated tags, trimmed, blanks dropped. */
export function parseTags(text: string): string[] {
  return text.split(",").map((tag) => tag.trim()).filter((tag) => tag.length > 0);
}

/** A labelled form control. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLLabelElement {
  return h("label", { class: "field" }, h("span", { class: "label" }, label), control, hint ? h("small", {}, hint) : null);
}

export function tagList(tags: readonly string[]): HTMLElement {
  return h("span", { class: "tags" }, ...tags.map((tag) => h("span", { class: "tag" }, tag)));
}

/** Runs `task` with `button` disabled, so a double click does not send twice. */
export async function busy<T>(button: HTMLButtonElement, task: () => Promise<T>): Promise<T> {
  button.disabled = true;
  try {
    return await task();
  } finally {
    button.disabled = false;
  }
}
