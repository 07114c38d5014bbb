import { createRequire } from "node:module";
import { cruise, type IConfiguration, type ICruiseResult } from "dependency-cruiser";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

const rules = createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as Required<Pick<IConfiguration, "forbidden" | "options">>;

describe("layers", () => {
  it("src/ has no import cycle and no import of a layer above (.dependency-cruiser.cjs)", async () => {
    const { tsConfig, ...options } = rules.options;
    const reported = await cruise(
      ["src"],
      { ...options, validate: true, ruleSet: { forbidden: rules.forbidden }, outputType: "json" },
      {},
      { tsConfig: extractTSConfig(tsConfig!.fileName!) },
    );
    const { summary } = JSON.parse(reported.output as string) as ICruiseResult;
    const violations = summary.violations.map((v) =>
      `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((step) => step.name).join(" → ")})` : ""}`,
    );
    expect(violations).toEqual([]);
    // a cruise that found nothing would pass as well: it must have read the tree
    expect(summary.totalCruised).toBeGreaterThan(200);
  }, 120_000);
});
