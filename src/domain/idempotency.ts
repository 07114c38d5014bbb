import { createHash } from "node:crypto";
import type { Database } from "../db/database.ts";
import { AppError, invalid } from "../errors.ts";

const KEEP_HOURS = 24;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** A response as stored for replay. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyStart = { kind: "new" } | { kind: "replay"; response: StoredResponse };

export const requestHash = (method: string, target: string, body: Buffer | string) =>
  createHash("sha256").update(`${method} ${target}\n`).update(body).digest("hex");

/**
 * Idempotency-Key, per user and kept for 24 hours: the first request with a key runs and its response is
 * stored; a repeat with the same request gets that response again instead of running twice; the same key with
 * another request, or while the first is still running, is a 409 IDEMPOTENCY_CONFLICT.
 */
export class IdempotencyService {
  constructor(private readonly db: Database) {}

  checkKey(key: string): string {
    if (!KEY_PATTERN.test(key)) throw invalid("Idempotency-Key", "must be 1 to 255 visible ASCII characters");
    return key;
  }

  async begin(userId: string, key: string, hash: string): Promise<IdempotencyStart> {
    // an expired record is forgotten, so the key can be used afresh
    await this.db.sql.query(
      `DELETE FROM idempotency_records WHERE user_id = $1::uuid AND key = $2 AND created_at < now() - make_interval(hours => $3)`,
      [userId, key, KEEP_HOURS],
    );
    const inserted = await this.db.sql.query(
      `INSERT INTO idempotency_records (user_id, key, request_hash) VALUES ($1::uuid, $2, $3)
       ON CONFLICT (user_id, key) DO NOTHING RETURNING 1`,
      [userId, key, hash],
    );
    if (inserted.length) return { kind: "new" };
    const [record] = await this.db.sql.query<{ request_hash: string; response: StoredResponse | null }>(
      "SELECT request_hash, response FROM idempotency_records WHERE user_id = $1::uuid AND key = $2",
      [userId, key],
    );
    if (!record) return this.begin(userId, key, hash); // deleted meanwhile
    if (record.request_hash !== hash) {
      throw new AppError("IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used with a different request");
    }
    if (!record.response) {
      throw new AppError("IDEMPOTENCY_CONFLICT", "A request with this Idempotency-Key is still running; retry shortly");
    }
    return { kind: "replay", response: record.response };
  }

  async complete(userId: string, key: string, response: StoredResponse): Promise<void> {
    await this.db.sql.query("UPDATE idempotency_records SET response = $3::jsonb WHERE user_id = $1::uuid AND key = $2", [
      userId,
      key,
      JSON.stringify(response),
    ]);
  }

  /** Forgets a key whose request failed unexpectedly, so that a retry runs again. */
  async abandon(userId: string, key: string): Promise<void> {
    await this.db.sql.query("DELETE FROM idempotency_records WHERE user_id = $1::uuid AND key = $2 AND response IS NULL", [
      userId,
      key,
    ]);
  }

  async purgeExpired(): Promise<number> {
    const rows = await this.db.sql.query(
      "DELETE FROM idempotency_records WHERE created_at < now() - make_interval(hours => $1) RETURNING 1",
      [KEEP_HOURS],
    );
    return rows.length;
  }
}
