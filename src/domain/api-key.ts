import { generateKeySecret, hashKey } from "./key-secret.ts";
import type { Principal } from "./principal.ts";
import type { Database } from "../db/database.ts";
import { invalid, notFound } from "../errors.ts";
import type { ApiKey } from "../generated/prisma/client.ts";
import { isUuid } from "./ids.ts";
import { exceedsCharacters } from "../text/characters.ts";

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

  constructor(private readonly db: Database) {
    this.cache = db.singleWriter ? new Map() : undefined;
  }

  /**
   * Whether the key `keyId`, which authenticated a request that is still answering (a subscription's stream),
   * has not been revoked since: exactly on the embedded database, and on PostgreSQL as of at most a second ago.
   */
  async stands(keyId: string): Promise<boolean> {
    if (this.cache) return !this.revokedIds.has(keyId);
    const checked = this.standingAt.get(keyId);
    if (checked !== undefined && performance.now() - checked < STANDING_RECHECK_MS) return true;
    const row = await this.db.prisma.apiKey.findUnique({ where: { id: keyId }, select: { revokedAt: true } });
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

  async create(userId: string, name: string): Promise<CreatedKey> {
    const clean = name.trim();
    if (!clean || exceedsCharacters(clean, MAX_NAME_CHARS) || !clean.isWellFormed() || clean.includes("\0")) {
      throw invalid("name", `must be 1 to ${MAX_NAME_CHARS} characters`);
    }
    const secret = generateKeySecret();
    const apiKey = await this.db.prisma.apiKey.create({
      data: { userId, name: clean, prefix: secret.prefix, hash: secret.hash },
    });
    return { key: secret.key, apiKey };
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
