import { invalid } from "../errors.ts";
import { exceedsCharacters, isBlank } from "../text/characters.ts";
import { unstorableText } from "./json.ts";

/**
 * A short text a person names something with (a thread's title and description, a webhook's description): trimmed,
 * not blank, at most `max` characters (code points), storable. One rule wherever such a text is taken.
 */
export function checkText(field: string, value: string, max: number): string {
  const clean = value.trim();
  if (isBlank(clean)) throw invalid(field, "must not be empty");
  if (exceedsCharacters(clean, max)) throw invalid(field, `must be at most ${max} characters`);
  const reason = unstorableText(clean);
  if (reason) throw invalid(field, reason);
  return clean;
}
