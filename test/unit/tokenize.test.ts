import { describe, expect, it } from "vitest";
import { stem, tokenize, words } from "../../src/text/tokenize.ts";

describe("tokenize", () => {
  it("folds case, compatibility forms and accents", () => {
    expect(tokenize("CAFÉ Naïve ﬁnance ＡＢＣ１２３")).toEqual(["cafe", "naiv", "financ", "abc123"]);
    expect(tokenize("Straße Øresund Łódź")).toEqual(["strass", "oresund", "lodz"]);
    expect(tokenize("Résumé")).toEqual(tokenize("resume"));
  });

  it("splits on punctuation and symbols and keeps digits", () => {
    expect(tokenize("e-mail me at 3pm, 2023-05-07!")).toEqual(["e", "mail", "3pm", "2023", "05", "07"]);
  });

  it("removes English stop words, contractions included", () => {
    expect(tokenize("It is what it is, and they're not here")).toEqual([]);
    expect(tokenize("I don't know")).toEqual(["know"]);
    expect(tokenize("the garden")).toEqual(tokenize("a garden"));
  });

  it("drops possessives and pronoun clitics, and joins other apostrophes", () => {
    expect(tokenize("Caroline's painting")).toEqual(["carolin", "paint"]);
    expect(tokenize("Caroline’s")).toEqual(["carolin"]);
    expect(tokenize("she'll buy a shell; we'd wed")).toEqual(["buy", "shell", "wed"]);
    expect(words("rock'n'roll")).toEqual(["rocknroll"]);
  });

  it("conflates common word forms", () => {
    expect(new Set(tokenize("run runs running ran"))).toEqual(new Set(["run"]));
    expect(new Set(tokenize("paint paints painted painting"))).toEqual(new Set(["paint"]));
    expect(tokenize("She felt happy; the children went swimming")).toEqual(["feel", "happi", "child", "go", "swim"]);
  });

  it("keeps letters of any script", () => {
    expect(tokenize("Привет, мир")).toEqual(["привет", "мир"]);
    expect(tokenize("한국어 텍스트")).toEqual(["한국어", "텍스트"]);
    expect(tokenize("Ελληνικά")).toEqual(["ελληνικα"]);
  });

  it("cuts CJK runs, written without spaces, into overlapping bigrams", () => {
    expect(tokenize("東京都")).toEqual(["東京", "京都"]);
    expect(tokenize("猫")).toEqual(["猫"]);
    expect(tokenize("東京2023")).toEqual(["東京", "2023"]);
  });

  it("gives nothing for text without words", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize(" \t\n ")).toEqual([]);
    expect(tokenize("🎉🚀 !!! ...")).toEqual([]);
  });

  it("handles very long text", () => {
    const text = "memory retrieval ".repeat(50_000);
    const terms = tokenize(text);
    expect(terms).toHaveLength(100_000);
    expect(new Set(terms)).toEqual(new Set(["memori", "retriev"]));
  });

  it("keeps a very long word by its first 200 characters, in any script, so that it still finds itself", () => {
    const hex = "0123456789abcdef".repeat(200);
    expect(words(`dump ${hex} end`)).toEqual(["dump", hex.slice(0, 200), "end"]);
    const gothic = "\u{10330}".repeat(300); // a letter of two UTF-16 units, which no fold changes
    expect(words(gothic)).toEqual([Array.from(gothic).slice(0, 200).join("")]);
    expect(words(`${hex}zzz`)).toEqual(words(hex));
  });
});

describe("stem (Snowball English)", () => {
  // Expected values are libstemmer's (Snowball 2.2) output.
  it.each([
    ["adoption", "adopt"],
    ["agreed", "agre"],
    ["communication", "communic"],
    ["consistency", "consist"],
    ["cried", "cri"],
    ["dying", "die"],
    ["families", "famili"],
    ["gently", "gentl"],
    ["happiness", "happi"],
    ["hopeful", "hope"],
    ["hoping", "hope"],
    ["news", "news"],
    ["organization", "organ"],
    ["really", "realli"],
    ["relational", "relat"],
    ["sized", "size"],
    ["studying", "studi"],
    ["succeeded", "succeed"],
    ["ties", "tie"],
    ["ayyy", "ayyy"],
  ])("%s → %s", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it("leaves short words, numbers and other scripts alone", () => {
    expect(stem("is")).toBe("is");
    expect(stem("2023s")).toBe("2023s");
    expect(stem("привет")).toBe("привет");
  });
});
