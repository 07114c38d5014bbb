/**
 * Whether `text` has more than `max` characters, counted as the API's limits count them: Unicode code points (an
 * emoji is one, where a string's length says two). That length is never fewer, so code points are counted only
 * past the bound.
 */
export const exceedsCharacters = (text: string, max: number): boolean => text.length > max && [...text].length > max;
