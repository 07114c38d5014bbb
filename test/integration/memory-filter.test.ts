import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filterSql } from "../../src/vectors/filter-sql.ts";
import { checkMemoryFilter, type MemoryFilterInput } from "../../src/domain/memory-filter.ts";
import { filter, memory, ROOMY } from "../support/memory-filter-arbitraries.ts";
import { matchesFilter, type FilterableMemory } from "../support/memory-filter-reference.ts";
import { databaseUnavailable, startTestServer, type TestServer } from "../support/server.ts";

describe.skipIf(databaseUnavailable())("metadata filters in SQL", () => {
  let server: TestServer;
  const memories = fc.sample(memory, { numRuns: 300, seed: 42 });
  const query = async (input: MemoryFilterInput) => {
    const clause = checkMemoryFilter(input, ROOMY);
    const params: unknown[] = [];
    const where = clause ? filterSql(clause, params, "p") : "true";
    const rows = await server.app.services.db.sql.query<{ n: number }>(`SELECT p.n FROM filter_probe p WHERE ${where} ORDER BY p.n`, params);
    return { found: rows.map((row) => Number(row.n)), expected: memories.flatMap((m, n) => (!clause || matchesFilter(clause, m) ? [n] : [])) };
  };

  beforeAll(async () => {
    server = await startTestServer();
    const sql = server.app.services.db.sql;
    await sql.query("CREATE TABLE filter_probe (n int, type text, tags text[] NOT NULL, thread_id uuid, metadata jsonb NOT NULL)");
    await sql.query(
      `INSERT INTO filter_probe SELECT r.n, r.type, r.tags, r.thread_id, r.metadata
         FROM jsonb_to_recordset($1::jsonb) AS r(n int, type text, tags text[], thread_id uuid, metadata jsonb)`,
      [JSON.stringify(memories.map((m, n) => ({ n, type: m.type, tags: m.tags, thread_id: m.threadId, metadata: m.metadata })))],
    );
  });
  afterAll(() => server?.close());

  it("selects exactly the memories the reference evaluation selects, for random filters", async () => {
    let nonTrivial = 0;
    await fc.assert(
      fc.asyncProperty(filter, async (input) => {
        const { found, expected } = await query(input);
        if (expected.length > 0 && expected.length < memories.length) nonTrivial++;
        expect(found).toEqual(expected);
      }),
      { numRuns: 400, seed: 7 },
    );
    // the generators must make filters that tell memories apart, or the property says little
    expect(nonTrivial).toBeGreaterThan(80);
  });

  it("tests a list by its elements, numbers by value", async () => {
    const cases: [MemoryFilterInput, (m: FilterableMemory) => boolean][] = [
      [{ metadata: [{ path: "project", eq: "apollo" }] }, (m) => [m.metadata.project].flat().includes("apollo")],
      [{ metadata: [{ path: "priority", eq: 3 }] }, (m) => [m.metadata.priority].flat().includes(3)],
      [{ not: { metadata: [{ path: "due", exists: true }] } }, (m) => [m.metadata.due].flat().every((v) => v === null || v === undefined)],
    ];
    for (const [input, plain] of cases) {
      const { found } = await query(input);
      expect(found).toEqual(memories.flatMap((m, n) => (plain(m) ? [n] : [])));
    }
  });
});
