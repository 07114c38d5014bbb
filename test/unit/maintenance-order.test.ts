import { describe, expect, it } from "vitest";
import { due, type TableStats } from "../../src/db/maintenance.ts";

// A round of the embedded database's maintenance stops after its time budget: the tables furthest over
// autovacuum's thresholds must come first, and tables under every threshold not at all.
describe("embedded database maintenance order", () => {
  const table = (name: string, counts: Partial<TableStats>): TableStats => ({ name, live: 0, dead: 0, inserted: 0, modified: 0, ...counts });

  it("lists the tables over a threshold, the furthest over first, with what each needs", () => {
    const plan = due([
      table("quiet", { live: 10_000, dead: 100, inserted: 100, modified: 100 }),
      table("grown", { live: 10_000, inserted: 9_000, modified: 600 }),
      table("churned", { live: 100, dead: 5_000, modified: 5_000 }),
      table("analysed", { live: 10_000, modified: 2_000 }),
    ]);
    expect(plan.map(({ table: { name }, vacuum, analyze }) => [name, vacuum, analyze])).toEqual([
      ["churned", true, true],
      ["grown", true, false],
      ["analysed", false, true],
    ]);
  });
});
