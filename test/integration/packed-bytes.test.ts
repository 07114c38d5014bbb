import { describe, expect, it } from "vitest";
import { packBytes, unpackSql } from "../../src/db/packed-bytes.ts";
import { databaseUnavailable, suiteServer } from "../support/server.ts";

// every byte value, and the ones the text forms of bytea escape
const awkward = new Uint8Array([0, 92, 120, 34, 44, 123, 125, 255, ...Array.from({ length: 256 }, (_, i) => i)]);

describe.skipIf(databaseUnavailable())("byte strings through the database driver", () => {
  const suite = suiteServer();

  it("sends a bytea parameter and reads it back unchanged, empty or not", async () => {
    const [row] = await suite.server.app.services.db.sql.query<{ b: Uint8Array; e: Uint8Array; n: number }>(
      "SELECT $1::bytea AS b, $2::bytea AS e, length($1::bytea) AS n",
      [awkward, new Uint8Array(0)],
    );
    expect(row!.n).toBe(awkward.length);
    expect([...row!.b]).toEqual([...awkward]);
    expect(row!.e.length).toBe(0);
  });

  it("cuts packed byte strings apart again, missing and empty ones included", async () => {
    const parts = [awkward, null, new Uint8Array([7, 8, 9]), new Uint8Array(0), awkward.subarray(3, 10)];
    const packed = packBytes(parts);
    const rows = await suite.server.app.services.db.sql.query<{ n: number; part: Uint8Array | null }>(
      `SELECT x.n::int AS n, ${unpackSql("$1::bytea", "x.at", "x.len")} AS part
         FROM unnest($2::int[], $3::int[]) WITH ORDINALITY AS x(at, len, n) ORDER BY x.n`,
      [packed.blob, packed.at, packed.len],
    );
    expect(rows.map((row) => (row.part === null ? null : [...row.part]))).toEqual(parts.map((p) => (p === null ? null : [...p])));
  });
});
