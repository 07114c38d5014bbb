const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for HTML content and attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ENTITIES[char]!);

/** Description text: escaped, with the Markdown the document's texts use: `code`, and blank lines as breaks. */
export const prose = (text: string): string =>
  escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\n\n/g, "<br>");

/** An id for an element, from a name that may hold characters ids should not. */
export const anchor = (prefix: string, name: string): string => `${prefix}-${name.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
