/**
 * The terms that both the lexical index (BM25) and the built-in embedder see. Lexical search and the embedder
 * must agree on what a "word" is, or a memory found by one would be missed by the other for reasons of spelling.
 *
 * Pipeline: lowercase, NFKD, drop Latin-style combining accents (U+0300–U+036F), NFC; a few letters that do
 * not decompose are folded by hand (ß, æ, œ, ø, đ, ł, ı); runs of letters, marks and digits of any script are
 * words, everything else separates; a final "'s", "'ll", "'d", "'re", "'ve" or "'m" is dropped ("Caroline's" →
 * "caroline", "she'll" → "she"), any other in-word apostrophe joins ("don't" → "dont"); runs of Han/Hiragana/Katakana, written without spaces, become overlapping
 * character bigrams; common irregular English inflections take their base form ("felt" → "feel"), which no
 * suffix stemmer can do; English stop words go; ASCII words are stemmed with Snowball English (Porter2).
 */

/**
 * The normalised words of a text, irregular inflections put in their base form, stop words removed, not stemmed
 * (the embedder's character n-grams use these).
 */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const match of fold(text).matchAll(WORD)) {
    const surface = joinApostrophes(match[0]);
    const word = IRREGULAR.get(surface) ?? surface;
    if (NO_SPACE_SCRIPT.test(word)) pushWithBigrams(word, out);
    else if (!STOP_WORDS.has(word)) out.push(word.length > MAX_WORD_CHARS ? cut(word) : word);
  }
  return out;
}

// A word is kept by its first 200 characters (800 bytes at most): the databases' b-tree indexes, the lexical index's
// among them, refuse an entry over about 2 700 bytes, and a content holding one longer word (a hex dump, a long
// number) failed its whole write, a batch's other items with it. Query and memory are cut alike, so such a word
// still finds itself.
const MAX_WORD_CHARS = 200;
const cut = (word: string) => Array.from(word).slice(0, MAX_WORD_CHARS).join("");

/** The terms of a text: `words(text)`, each stemmed. */
export function tokenize(text: string): string[] {
  return words(text).map(stem);
}

// ASCII text skips normalisation, which would leave it unchanged.
const NON_ASCII = /[^\u0000-\u007f]/;
const COMBINING_ACCENTS = /[\u0300-\u036f]/g;
const UNDECOMPOSED = /[ßæœøđłı]/g;
const UNDECOMPOSED_FOLD: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  đ: "d",
  ł: "l",
  ı: "i",
};

function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  // Lowercase after decomposing, so that compatibility forms ("ℌ", "Ⅻ") come out lowercase too, and before
  // dropping accents, so that those it splits off ("İ" → "i" + dot above) go as well.
  return text
    .normalize("NFKD")
    .toLowerCase()
    .replace(COMBINING_ACCENTS, "")
    .normalize("NFC")
    .replace(UNDECOMPOSED, (c) => UNDECOMPOSED_FOLD[c] ?? c);
}

const WORD = /[\p{L}\p{M}\p{N}]+(?:['\u2019\u02bc][\p{L}\p{M}\p{N}]+)*/gu;
const HAS_APOSTROPHE = /['\u2019\u02bc]/;
const APOSTROPHES = /['\u2019\u02bc]/g;
// Possessive and the clitics of pronouns ("she'll", "we'd", "they're"), which joined would spell other words.
const CLITIC = /['\u2019\u02bc](?:s|ll|d|re|ve|m)$/;

function joinApostrophes(word: string): string {
  return HAS_APOSTROPHE.test(word) ? word.replace(CLITIC, "").replace(APOSTROPHES, "") : word;
}

// U+30FC, the katakana length mark, is of the Common script but only ever inside Japanese words.
const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc`;
const NO_SPACE_SCRIPT = new RegExp(`[${CJK}]`, "u");
const NO_SPACE_RUNS = new RegExp(`[${CJK}]+|[^${CJK}]+`, "gu");

// Without a dictionary there is no telling where a CJK word ends; overlapping bigrams are the usual stand-in
// (Lucene's CJKBigramFilter) and match any shared two-character word.
function pushWithBigrams(word: string, out: string[]): void {
  for (const run of word.matchAll(NO_SPACE_RUNS)) {
    const chars = Array.from(run[0]);
    if (!NO_SPACE_SCRIPT.test(run[0])) {
      if (!STOP_WORDS.has(run[0])) out.push(run[0]);
    } else if (chars.length === 1) {
      out.push(run[0]);
    } else {
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
    }
  }
}

// Snowball's English list, its contractions spelt without apostrophe as people also type them ("dont", "im"),
// less those that would then be content words ("shell", "shed", "hell", "wed", "id"), plus a few very common
// function words it lacks (can, will, just, also). Negations go too: BM25 cannot use them, and they would only
// make "I don't like X" look less like "X" to the embedder.
const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are arent as at be because been before being below
  between both but by can cannot cant could couldnt did didnt do does doesnt doing dont down during each few for
  from further had hadnt has hasnt have havent having he hed hes her here heres hers herself him himself his
  how hows i if im in into is isnt it its itself ive just lets me more most mustnt my myself no nor not now of
  off on once only or other ought our ours ourselves out over own same shant she shes should shouldnt
  so some such than that thats the their theirs them themselves then there theres these they theyd theyll theyre
  theyve this those through to too under until up very was wasnt we were weve werent what whats when whens
  where wheres which while who whos whom why whys will with wont would wouldnt you youd youll youre youve your
  yours yourself yourselves`.split(/\s+/),
);

// Irregular past tenses, participles and plurals of everyday English. Forms that are common words in their own
// right are left out ("bit", "rose", "left", "lay", "bore", "wound"); "saw" stays, the tool being rare in speech.
const IRREGULAR: ReadonlyMap<string, string> = new Map(
  `arose:arise arisen:arise ate:eat eaten:eat awoke:awake awoken:awake beaten:beat became:become began:begin
  begun:begin bent:bend bitten:bite bled:bleed blew:blow blown:blow broke:break broken:break bred:breed
  brought:bring built:build burnt:burn bought:buy caught:catch chose:choose chosen:choose came:come crept:creep
  dealt:deal done:do dug:dig drew:draw drawn:draw dreamt:dream drank:drink drunk:drink drove:drive driven:drive
  fed:feed felt:feel fought:fight found:find fled:flee flew:fly flown:fly forgot:forget forgotten:forget
  forgave:forgive forgiven:forgive froze:freeze frozen:freeze got:get gotten:get gave:give given:give went:go
  gone:go grew:grow grown:grow hung:hang heard:hear hid:hide hidden:hide held:hold kept:keep knelt:kneel knew:know
  known:know laid:lay led:lead leapt:leap learnt:learn lent:lend lost:lose made:make meant:mean met:meet paid:pay
  ran:run rang:ring rung:ring rode:ride ridden:ride risen:rise said:say saw:see seen:see sought:seek sold:sell
  sent:send shook:shake shaken:shake shone:shine shot:shoot shown:show shrank:shrink sang:sing sung:sing sank:sink
  sunk:sink sat:sit slept:sleep slid:slide spoke:speak spoken:speak sped:speed spent:spend spun:spin stood:stand
  stole:steal stolen:steal stuck:stick stung:sting strove:strive struck:strike swore:swear sworn:swear swept:sweep
  swam:swim swum:swim swung:swing took:take taken:take taught:teach tore:tear torn:tear told:tell thought:think
  threw:throw thrown:throw understood:understand woke:wake woken:wake wore:wear worn:wear wove:weave woven:weave
  wept:weep won:win wrote:write written:write children:child men:man women:woman feet:foot teeth:tooth mice:mouse
  geese:goose people:person`
    .split(/\s+/)
    .map((pair) => pair.split(":") as [string, string]),
);

const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string>();

/** Snowball English (Porter2) for words of ASCII letters; anything else (digits, other scripts) is left alone. */
export function stem(word: string): string {
  if (word.length <= 2 || !ASCII_LETTERS.test(word)) return word;
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  // Words repeat heavily (Zipf), so a bounded memo pays for itself; clearing when full keeps it simple.
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  const result = porter2(word);
  stemCache.set(word, result);
  return result;
}

const ASCII_LETTERS = /^[a-z]+$/;

// ---- Snowball English ("Porter2"), https://snowballstem.org/algorithms/english/stemmer.html ----
// Output identical to libstemmer's (Snowball 2.2) on 285,000 English words. 'Y' marks a consonant y.

const EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["skis", "ski"],
  ["skies", "sky"],
  ["dying", "die"],
  ["lying", "lie"],
  ["tying", "tie"],
  ["idly", "idl"],
  ["gently", "gentl"],
  ["ugly", "ugli"],
  ["early", "earli"],
  ["only", "onli"],
  ["singly", "singl"],
  ["sky", "sky"],
  ["news", "news"],
  ["howe", "howe"],
  ["atlas", "atlas"],
  ["cosmos", "cosmos"],
  ["bias", "bias"],
  ["andes", "andes"],
]);

const AFTER_STEP_1A_EXCEPTIONS: ReadonlySet<string> = new Set([
  "inning",
  "outing",
  "canning",
  "herring",
  "earring",
  "proceed",
  "exceed",
  "succeed",
]);

const R1_PREFIXES = ["gener", "commun", "arsen"];

const isVowel = (c: string | undefined): boolean =>
  c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || c === "y";

function porter2(word: string): string {
  const exception = EXCEPTIONS.get(word);
  if (exception !== undefined) return exception;

  let w = markConsonantY(word);
  const r1 = regionR1(w);
  const r2 = regionAfter(w, r1);

  w = step1a(w);
  if (AFTER_STEP_1A_EXCEPTIONS.has(w)) return w;
  w = step1b(w, r1);
  w = step1c(w);
  w = step2(w, r1);
  w = step3(w, r1, r2);
  w = step4(w, r2);
  w = step5(w, r1, r2);
  return w.replace(/Y/g, "y");
}

function markConsonantY(word: string): string {
  if (!word.includes("y")) return word;
  let out = "";
  let previous: string | undefined;
  for (const c of word) {
    // A y after a marked Y is a vowel again ("ayy" → "aYy"), so look at what was written, not what was read.
    previous = c === "y" && (previous === undefined || isVowel(previous)) ? "Y" : c;
    out += previous;
  }
  return out;
}

function regionR1(w: string): number {
  for (const prefix of R1_PREFIXES) if (w.startsWith(prefix)) return prefix.length;
  return regionAfter(w, 0);
}

/** The region after the first non-vowel that follows a vowel, looking from `start`. */
function regionAfter(w: string, start: number): number {
  for (let i = start + 1; i < w.length; i++) if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  return w.length;
}

function endsWithShortSyllable(w: string): boolean {
  const n = w.length;
  if (n === 2) return isVowel(w[0]) && !isVowel(w[1]);
  if (n < 3) return false;
  const last = w[n - 1]!;
  return !isVowel(w[n - 3]) && isVowel(w[n - 2]) && !isVowel(last) && last !== "w" && last !== "x" && last !== "Y";
}

const isShort = (w: string, r1: number): boolean => r1 >= w.length && endsWithShortSyllable(w);

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowel(w[i])) return true;
  return false;
}

/** The longest of `suffixes` (listed longest first) that `w` ends with. */
function longestSuffix(w: string, suffixes: readonly string[]): string | undefined {
  for (const s of suffixes) if (w.endsWith(s)) return s;
  return undefined;
}

/** A step's suffixes, each with what replaces it. */
class Replacements {
  private readonly suffixes: readonly string[];
  private readonly replacements: ReadonlyMap<string, string>;

  constructor(table: ReadonlyArray<readonly [string, string]>) {
    this.suffixes = table.map(([suffix]) => suffix);
    this.replacements = new Map(table);
  }

  /** The longest of the suffixes `w` ends with, where it starts, and `w` with it replaced; undefined for none. */
  longest(w: string): { suffix: string; start: number; replaced: string } | undefined {
    const suffix = longestSuffix(w, this.suffixes);
    if (suffix === undefined) return undefined;
    const start = w.length - suffix.length;
    return { suffix, start, replaced: w.slice(0, start) + (this.replacements.get(suffix) ?? "") };
  }
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ied") || w.endsWith("ies")) return w.length > 4 ? w.slice(0, -2) : w.slice(0, -1);
  if (w.endsWith("us") || w.endsWith("ss")) return w;
  if (w.endsWith("s") && hasVowel(w, w.length - 2)) return w.slice(0, -1);
  return w;
}

const STEP_1B = ["eedly", "ingly", "edly", "eed", "ing", "ed"];
const DOUBLES = new Set(["bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"]);

function step1b(w: string, r1: number): string {
  const suffix = longestSuffix(w, STEP_1B);
  if (suffix === undefined) return w;
  const start = w.length - suffix.length;
  if (suffix === "eed" || suffix === "eedly") return start >= r1 ? w.slice(0, start) + "ee" : w;
  if (!hasVowel(w, start)) return w;
  const rest = w.slice(0, start);
  if (rest.endsWith("at") || rest.endsWith("bl") || rest.endsWith("iz")) return rest + "e";
  if (DOUBLES.has(rest.slice(-2))) return rest.slice(0, -1);
  return isShort(rest, r1) ? rest + "e" : rest;
}

function step1c(w: string): string {
  const n = w.length;
  const last = w[n - 1];
  return (last === "y" || last === "Y") && n > 2 && !isVowel(w[n - 2]) ? w.slice(0, -1) + "i" : w;
}

const STEP_2 = new Replacements([
  ["ization", "ize"],
  ["ational", "ate"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["iveness", "ive"],
  ["tional", "tion"],
  ["biliti", "ble"],
  ["lessli", "less"],
  ["entli", "ent"],
  ["ation", "ate"],
  ["alism", "al"],
  ["aliti", "al"],
  ["ousli", "ous"],
  ["iviti", "ive"],
  ["fulli", "ful"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["abli", "able"],
  ["izer", "ize"],
  ["ator", "ate"],
  ["alli", "al"],
  ["bli", "ble"],
  ["ogi", "og"],
  ["li", ""],
]);
const VALID_LI = new Set(["c", "d", "e", "g", "h", "k", "m", "n", "r", "t"]);

function step2(w: string, r1: number): string {
  const found = STEP_2.longest(w);
  if (found === undefined || found.start < r1) return w;
  const { suffix, start } = found;
  if (suffix === "ogi" && w[start - 1] !== "l") return w;
  if (suffix === "li" && !VALID_LI.has(w[start - 1] ?? "")) return w;
  return found.replaced;
}

const STEP_3 = new Replacements([
  ["ational", "ate"],
  ["tional", "tion"],
  ["alize", "al"],
  ["icate", "ic"],
  ["iciti", "ic"],
  ["ative", ""],
  ["ical", "ic"],
  ["ness", ""],
  ["ful", ""],
]);

function step3(w: string, r1: number, r2: number): string {
  const found = STEP_3.longest(w);
  if (found === undefined || found.start < r1 || (found.suffix === "ative" && found.start < r2)) return w;
  return found.replaced;
}

const STEP_4 = [
  "ement",
  "ance",
  "ence",
  "able",
  "ible",
  "ment",
  "ant",
  "ent",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
  "ion",
  "al",
  "er",
  "ic",
];

function step4(w: string, r2: number): string {
  const suffix = longestSuffix(w, STEP_4);
  if (suffix === undefined) return w;
  const start = w.length - suffix.length;
  if (start < r2) return w;
  if (suffix === "ion" && w[start - 1] !== "s" && w[start - 1] !== "t") return w;
  return w.slice(0, start);
}

function step5(w: string, r1: number, r2: number): string {
  const n = w.length;
  if (w[n - 1] === "e") {
    if (n - 1 >= r2 || (n - 1 >= r1 && !endsWithShortSyllable(w.slice(0, -1)))) return w.slice(0, -1);
  } else if (w[n - 1] === "l" && n - 1 >= r2 && w[n - 2] === "l") {
    return w.slice(0, -1);
  }
  return w;
}
