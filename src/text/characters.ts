/**
 * Whether `text` has more than `max` characters, counted as the API's limits count them: Unicode code points (an
 * emoji is one, where a string's length says two). That length is never fewer, so code points are counted only
 * past the bound.
 */
export const exceedsCharacters = (text: string, max: number): boolean => text.length > max && [...text].length > max;

// characters that show nothing and are not whitespace to String.trim: zero-width space, non-joiner and joiner, word
// joiner (U+FEFF, the other one, trim removes)
const INVISIBLE = /[\u200B-\u200D\u2060]/g;

/** Whether `text` shows nothing: whitespace and zero-width characters only. */
export const isBlank = (text: string): boolean => text.replace(INVISIBLE, "").trim() === "";
