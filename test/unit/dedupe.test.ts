import { describe, expect, it } from "vitest";
import { contentKey, normalisedContent } from "../../src/domain/content-key.ts";
import { dedupeModeOf } from "../../src/domain/dedupe.ts";

describe("the duplicate guard's rules", () => {
  it("normalises text: NFKC, case folded, whitespace runs made one space, trimmed", () => {
    expect(normalisedContent("  Ｇreen\u00a0TEA\t\n to   ﬁx  ", false)).toBe("green tea to fix");
    expect(normalisedContent("STRASSE", false)).toBe(normalisedContent("straße", false));
    expect(normalisedContent("STRAẞE", false)).toBe(normalisedContent("Straße", false));
    expect(normalisedContent("ΟΔΟΣ", false)).toBe(normalisedContent("οδος", false));
    // words and punctuation still count
    expect(normalisedContent("green tea.", false)).not.toBe(normalisedContent("green tea", false));
  });

  it("keeps a structured record's canonical JSON as it is, and never gives text and a record one key", () => {
    const json = '{"a":"X  Y"}';
    expect(normalisedContent(json, true)).toBe(json);
    expect(contentKey(json, true)).not.toBe(contentKey(json, false));
    expect(contentKey("Tea", false)).toBe(contentKey(" tea ", false));
    expect(contentKey("Tea", false)).toMatch(/^v2:/);
  });

  it("resolves a create's dedupe against the server's DEDUPE", () => {
    const cases: [boolean | null | undefined, "off" | "exact" | "near", string][] = [
      [undefined, "off", "off"],
      [null, "near", "near"],
      [true, "off", "exact"],
      [true, "exact", "exact"],
      [true, "near", "near"],
      [false, "exact", "off"],
      [false, "near", "off"],
    ];
    for (const [requested, server, mode] of cases) expect(dedupeModeOf(requested, server), `${requested} under ${server}`).toBe(mode);
  });
});
