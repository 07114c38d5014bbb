import { describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { ApiKeyService } from "../../src/domain/api-key.ts";

type Row = { revokedAt: Date | null } | null;

/** A PostgreSQL-like database (not the single writer) whose key lookups answer `answers` in turn. */
function keysOn(answers: (() => Promise<Row>)[]): ApiKeyService {
  const findUnique = () => answers.shift()!();
  const db = { singleWriter: false, prisma: { apiKey: { findUnique } } };
  return new ApiKeyService(db as unknown as Database);
}

describe("ApiKeyService.stands on a shared database", () => {
  // a subscription's stream ended with `complete` (on which clients do not reconnect) at a terminated connection (helper-24)
  it("takes a key to stand while the database does not answer, and asks again at the next check", async () => {
    const keys = keysOn([
      () => Promise.reject(new Error("terminating connection due to administrator command")),
      () => Promise.resolve({ revokedAt: new Date() }),
    ]);
    expect(await keys.stands("k")).toBe(true);
    expect(await keys.stands("k")).toBe(false);
  });

  it("is false for a key revoked or gone, true for one standing", async () => {
    const keys = keysOn([() => Promise.resolve(null), () => Promise.resolve({ revokedAt: null })]);
    expect(await keys.stands("gone")).toBe(false);
    expect(await keys.stands("standing")).toBe(true);
  });
});
