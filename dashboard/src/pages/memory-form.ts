import { field, h } from "../dom.ts";
import type { JsonObject } from "../queries.ts";

export interface ContentEditor {
  element: HTMLElement;
  /** `{content}` for text, `{data}` for a structured record; throws when the JSON is not an object. */
  read(): { content: string } | { data: JsonObject };
}

/** A memory's text, or its structured record as JSON. */
export function contentEditor(initial: { content: string; data: JsonObject | null } | null): ContentEditor {
  const structured = h("input", { type: "checkbox", name: "structured", checked: initial?.data != null });
  const text = h("textarea", { name: "content", rows: 6, required: true, spellcheck: "true" });
  text.value = initial?.data != null ? JSON.stringify(initial.data, null, 2) : (initial?.content ?? "");
  structured.addEventListener("change", () => {
    // switching to JSON offers the text as a JSON string's worth of content
    if (structured.checked && text.value.trim() && !looksLikeObject(text.value)) text.value = JSON.stringify({ text: text.value }, null, 2);
  });
  return {
    element: h(
      "div",
      { class: "editor" },
      field("Content", text),
      h("label", { class: "check" }, structured, " Structured record (a JSON object, stored in data)"),
    ),
    read() {
      if (!structured.checked) return { content: text.value };
      return { data: parseObject(text.value, "Content") };
    },
  };
}

function looksLikeObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** A JSON object from a text box; the message names the box when it is not one. */
export function parseObject(text: string, what: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() || "{}");
  } catch (error) {
    throw new Error(`${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${what} must be a JSON object`);
  return value as JsonObject;
}
