import { createHash } from "node:crypto";

/** Bumped when the normalisation changes: keys of another version are remade at start-up (dedupe.ts). */
export const KEY_VERSION = "v2";

/**
 * The text as the guard compares it: Unicode NFKC (compatibility forms, so "ﬁ" is "fi" and a full-width "Ａ"
 * an "A"), case folded (upper then lower case, so "ß" and "SS" meet; the capital "ẞ", which that leaves an "ß",
 * folds to "ss" as Unicode's case folding has it), whitespace runs made one space, trimmed.
 * A structured record is compared by its canonical JSON (keys sorted), its values as they are.
 */
export function normalisedContent(content: string, structured: boolean): string {
  if (structured) return content;
  const folded = content.normalize("NFKC").toUpperCase().toLowerCase().replaceAll("ß", "ss").normalize("NFKC");
  return folded.replace(/\s+/gu, " ").trim();
}

/** The key of a memory's content: equal for contents the guard takes for one; text never equals a record. */
export function contentKey(content: string, structured: boolean): string {
  const hash = createHash("sha256")
    .update(`${structured ? "json" : "text"}\0${normalisedContent(content, structured)}`)
    .digest("base64url");
  return `${KEY_VERSION}:${hash}`;
}

