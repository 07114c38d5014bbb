import { createHash, randomUUID } from "node:crypto";
import type { Database } from "../db/database.ts";
import { AppError, invalid } from "../errors.ts";
import { withoutShownKeys } from "./key-secret.ts";

const KEEP_HOURS = 24;
/**
 * How long a request with a key runs before another instance of the service (on PostgreSQL) may take the key over,
 * taking the request that held it for dead: longer than any request runs, so that one still running is not run
 * twice. On the embedded database a key held by an earlier process is taken over at once (one process holds the
 * data directory, so that one is gone).
 */
export const IDEMPOTENCY_LEASE_SECONDS = 300;
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

/** Keys remembered as unabandoned at most (a long outage's worth of failed retries); past it, their leases free them. */
const MAX_UNABANDONED = 10_000;

/**
 * Idempotency-Key, per user and kept for 24 hours: the first request with a key runs and its response is
 * stored; a repeat with the same request gets that response again instead of running twice; the same key with
 * another request, or while the first is still running, is a 409 IDEMPOTENCY_CONFLICT. A key whose request
 * was cut short by the end of its process (kill -9, a crash) is held by that process (`owner`) until it is taken
 * over: see IDEMPOTENCY_LEASE_SECONDS.
 */
export class IdempotencyService {
  /** This process, as the holder of the keys of the requests it runs. */
  private readonly owner = randomUUID();
  /** Keys of requests that failed, which the database could not be told to forget then (abandon). */
  private readonly unabandoned = new Set<string>();

  constructor(private readonly db: Database) {}

  checkKey(key: string): string {
    if (!KEY_PATTERN.test(key)) throw invalid("Idempotency-Key", "must be 1 to 255 visible ASCII characters");
    return key;
  }

  async begin(userId: string, key: string, hash: string): Promise<IdempotencyStart> {
    if (this.unabandoned.has(`${userId} ${key}`)) await this.abandon(userId, key);
    // an expired record is forgotten, so the key can be used afresh
    await this.db.sql.query(
      `DELETE FROM idempotency_records WHERE user_id = $1::uuid AND key = $2 AND created_at < now() - make_interval(hours => $3)`,
      [userId, key, KEEP_HOURS],
    );
    // a new key, or the same request's key left running by a process that is gone
    const lease = this.db.kind === "pglite" ? 0 : IDEMPOTENCY_LEASE_SECONDS;
    const inserted = await this.db.sql.query(
      `INSERT INTO idempotency_records AS r (user_id, key, request_hash, owner) VALUES ($1::uuid, $2, $3, $4::uuid)
       ON CONFLICT (user_id, key) DO UPDATE SET owner = excluded.owner, created_at = now()
         WHERE r.response IS NULL AND r.request_hash = excluded.request_hash AND r.owner IS DISTINCT FROM excluded.owner
           AND r.created_at <= now() - make_interval(secs => $5)
       RETURNING 1`,
      [userId, key, hash, this.owner, lease],
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
      // Retry-After tells a client this conflict passes (the other, a different body, does not)
      throw new AppError("IDEMPOTENCY_CONFLICT", "A request with this Idempotency-Key is still running; retry shortly", {
        headers: { "retry-after": "1" },
      });
    }
    return { kind: "replay", response: record.response };
  }

  async complete(userId: string, key: string, response: StoredResponse): Promise<void> {
    // not over a key another instance has taken over meanwhile (this request outran the lease)
    await this.db.sql.query("UPDATE idempotency_records SET response = $3::jsonb WHERE user_id = $1::uuid AND key = $2 AND owner = $4::uuid", [
      userId,
      key,
      JSON.stringify({ ...response, body: withoutShownKeys(response.body) }),
      this.owner,
    ]);
  }

  /**
   * Forgets a key whose request failed unexpectedly, so that a retry runs again. When the database cannot be told
   * (it is why the request failed), the key is remembered here and forgotten at its next use on this instance:
   * held until its lease ran out, it answered the retries 409 for five minutes.
   */
  async abandon(userId: string, key: string): Promise<void> {
    try {
      await this.db.sql.query("DELETE FROM idempotency_records WHERE user_id = $1::uuid AND key = $2 AND response IS NULL AND owner = $3::uuid", [
        userId,
        key,
        this.owner,
      ]);
      this.unabandoned.delete(`${userId} ${key}`);
    } catch {
      // the request's own failure is what its client is told
      if (this.unabandoned.size >= MAX_UNABANDONED) this.unabandoned.clear(); // their leases end them all the same
      this.unabandoned.add(`${userId} ${key}`);
    }
  }

  async purgeExpired(): Promise<number> {
    const rows = await this.db.sql.query(
      "DELETE FROM idempotency_records WHERE created_at < now() - make_interval(hours => $1) RETURNING 1",
      [KEEP_HOURS],
    );
    return rows.length;
  }
}
