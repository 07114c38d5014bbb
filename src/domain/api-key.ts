import { generateKeySecret, hashKey } from "./key-secret.ts";
import type { Principal } from "./principal.ts";
import type { Database } from "../db/database.ts";
import { AppError, invalid, notFound } from "../errors.ts";
import type { ApiKey } from "../generated/prisma/client.ts";
import { isUuid, newId } from "./ids.ts";
import { checkText } from "./text-field.ts";

export type { ApiKey };

const MAX_NAME_CHARS = 100;
// lastUsedAt is informative; writing it on every request would double the cost of a read
const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_CACHED_PRINCIPALS = 10_000;
// how long a key found standing on PostgreSQL is taken to stand by an open stream (stands): the window in which its
// revocation on any instance may still let an event through, against a query per event of every stream
const STANDING_RECHECK_MS = 1_000;

export interface CreatedKey {
  key: string;
  apiKey: ApiKey;
}

interface CachedPrincipal {
  principal: Principal;
  lastUsedAt: number;
}

export class ApiKeyService {
  /**
   * Known-good keys by hash, when this process is the database's only writer (the embedded database): every
   * revocation then passes through this service (the CLI talks to the running server), so evicting on revoke
   * keeps the cache exact. Servers sharing PostgreSQL check the key against the database every time.
   */
  private readonly cache: Map<string, CachedPrincipal> | undefined;
  /**
   * Counts revocations, so that a lookup which read the key before a revocation committed does not put it back
   * into the cache after the revocation evicted it.
   */
  private revocations = 0;
  /** The keys revoked since start, on the embedded database (where every revocation passes through here). */
  private readonly revokedIds = new Set<string>();
  /** On PostgreSQL, when each key asked about was last found standing (performance.now()). */
  private readonly standingAt = new Map<string, number>();

  /** `ownMax`: the live keys a user may hold when making their own (createOwn); the operator's CLI is not bound by it. */
  constructor(
    private readonly db: Database,
    private readonly ownMax = Infinity,
  ) {
    this.cache = db.singleWriter ? new Map() : undefined;
  }

  /**
   * Whether the key `keyId`, which authenticated a request that is still answering (a subscription's stream),
   * has not been revoked since: exactly on the embedded database, and on PostgreSQL as of at most a second ago (or
   * as of the last answer, while the database gives none).
   */
  async stands(keyId: string): Promise<boolean> {
    if (this.cache) return !this.revokedIds.has(keyId);
    const checked = this.standingAt.get(keyId);
    if (checked !== undefined && performance.now() - checked < STANDING_RECHECK_MS) return true;
    let row: { revokedAt: Date | null } | null;
    try {
      row = await this.db.prisma.apiKey.findUnique({ where: { id: keyId }, select: { revokedAt: true } });
    } catch {
      // the database not answering for a moment (a restart, a terminated connection) is no revocation: a stream
      // ended here would be told `complete`, on which clients do not reconnect. The next event asks again
      return true;
    }
    if (!row || row.revokedAt) {
      this.standingAt.delete(keyId);
      return false;
    }
    if (this.standingAt.size >= MAX_CACHED_PRINCIPALS) this.standingAt.clear();
    this.standingAt.set(keyId, performance.now());
    return true;
  }

  async authenticate(key: string): Promise<Principal | undefined> {
    const hash = hashKey(key);
    const cached = this.cache?.get(hash);
    if (cached) {
      this.touch(cached.principal.keyId, cached);
      return cached.principal;
    }
    const revocationsBefore = this.revocations;
    const row = await this.db.prisma.apiKey.findUnique({
      where: { hash },
      select: { id: true, userId: true, revokedAt: true, lastUsedAt: true },
    });
    if (!row || row.revokedAt) return undefined;
    const entry = { principal: { userId: row.userId, keyId: row.id }, lastUsedAt: row.lastUsedAt?.getTime() ?? 0 };
    if (this.cache && revocationsBefore === this.revocations) {
      if (this.cache.size >= MAX_CACHED_PRINCIPALS) this.cache.clear();
      this.cache.set(hash, entry);
    }
    this.touch(row.id, entry);
    return entry.principal;
  }

  private touch(keyId: string, entry: CachedPrincipal): void {
    const now = Date.now();
    if (now - entry.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    entry.lastUsedAt = now;
    // fire and forget: a lost timestamp is harmless, a slower request is not
    this.db.prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } }).catch(() => {});
  }

  /** A key for a user, made by the operator (CLI): as many as they like. */
  async create(userId: string, name: string): Promise<CreatedKey> {
    const clean = checkName(name);
    const secret = generateKeySecret();
    const apiKey = await this.db.prisma.apiKey.create({
      data: { userId, name: clean, prefix: secret.prefix, hash: secret.hash },
    });
    return { key: secret.key, apiKey };
  }

  /**
   * A key a user makes for themself (GraphQL, the dashboard), while they hold fewer than `ownMax` live ones: rate
   * limits are per key, so keys without end would be a budget without end. The user's row is locked while their
   * keys are counted, so that keys made at once (aliases of one request, or several requests) cannot pass the cap.
   */
  async createOwn(userId: string, name: string): Promise<CreatedKey> {
    const clean = checkName(name);
    const secret = generateKeySecret();
    const id = newId();
    await this.db.sql.transaction(async (sql) => {
      await sql.query("SELECT id FROM users WHERE id = $1::uuid FOR UPDATE", [userId]);
      const [{ live }] = (await sql.query<{ live: number }>(
        "SELECT count(*)::int AS live FROM api_keys WHERE user_id = $1::uuid AND revoked_at IS NULL",
        [userId],
      )) as [{ live: number }];
      if (live >= this.ownMax) {
        throw new AppError(
          "VALIDATION_ERROR",
          // the keys CLI is not held to the cap: a user can hold more than it
          `You hold ${live} API keys; a user may make their own up to ${this.ownMax} (MAX_KEYS_PER_USER): revoke one (revokeApiKey) before making another`,
        );
      }
      await sql.query("INSERT INTO api_keys (id, user_id, name, prefix, hash) VALUES ($1::uuid, $2::uuid, $3, $4, $5)", [
        id,
        userId,
        clean,
        secret.prefix,
        secret.hash,
      ]);
    });
    return { key: secret.key, apiKey: await this.db.prisma.apiKey.findUniqueOrThrow({ where: { id } }) };
  }

  list(userId: string): Promise<ApiKey[]> {
    return this.db.prisma.apiKey.findMany({ where: { userId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  }

  /** Revokes one of `userId`'s keys; `userId` undefined is the operator (CLI) acting on any key. */
  async revoke(id: string, userId?: string): Promise<ApiKey> {
    this.revocations++; // before the write: a lookup running alongside must not cache what it read
    const key = isUuid(id) ? await this.db.prisma.apiKey.findFirst({ where: { id, userId } }) : null;
    if (!key) throw notFound("API key");
    const revoked = key.revokedAt
      ? key
      : await this.db.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    this.cache?.delete(key.hash);
    if (this.cache) this.revokedIds.add(key.id);
    this.revocations++;
    return revoked;
  }
}

/** A key's name: a one-line label (the keys CLI lists a key a line), under the rule of every such text. */
function checkName(name: string): string {
  const clean = checkText("name", name, MAX_NAME_CHARS);
  if (/\p{Cc}/u.test(clean)) throw invalid("name", "must be one line, without control characters (line breaks, tabs)");
  return clean;
}
