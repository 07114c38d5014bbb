import { describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { ListTotals } from "../../src/domain/list-totals.ts";
import { TermStats } from "../../src/domain/term-stats.ts";

const USER = "00000000-0000-4000-8000-000000000001";
const DF: Record<string, number> = { common: 7, rare: 1 };

/** A database that counts the statements it is asked: 5 memories, and DF's postings. */
function countingDatabase(): { db: Database; statements: () => number } {
  let statements = 0;
  const query = async (text: string, params?: unknown[]) => {
    statements++;
    if (text.includes("FROM memories")) return [{ n: 5 }];
    return (params![1] as string[]).map((term) => ({ term, df: DF[term] ?? 0 }));
  };
  return { db: { sql: { query } } as unknown as Database, statements: () => statements };
}

// A recall each turn of a conversation that also writes each turn counted a common term's postings anew every turn:
// at a million memories, tens of thousands of postings a term, for an idf that one memory more moves by nothing
describe("the counts BM25 in SQL weighs terms by, after the user's own write", () => {
  it("are kept when steady (large), and counted again when small: a term's first memory must count", async () => {
    const { db, statements } = countingDatabase();
    const totals = new ListTotals(true);
    const stats = new TermStats(db, totals, 5);
    expect(await stats.of(USER, ["common", "rare"])).toEqual({ n: 5, df: new Map([["common", 7], ["rare", 1]]) });
    const first = statements();
    await stats.of(USER, ["common", "rare"]);
    expect(statements(), "kept while nothing is written").toBe(first);
    totals.changed(USER, ["00000000-0000-4000-8000-0000000000aa"]);
    await stats.of(USER, ["common"]);
    expect(statements(), "the memory count (5) and common's (7) are steady").toBe(first);
    await stats.of(USER, ["rare"]);
    expect(statements(), "rare's (1) is counted again").toBe(first + 1);
  });
});
