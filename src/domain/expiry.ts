import { invalid } from "../errors.ts";
import type { Prisma } from "../generated/prisma/client.ts";

/** How far ahead a memory may be set to expire, by either field: ten years. */
export const MAX_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;
/** Why a ttlSeconds is refused, whatever its size (GraphQL's Int refuses one beyond 2^31 before this layer sees it). */
export const TTL_RANGE = `must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS} (ten years)`;

/** A memory's expiry as a caller sends it: an instant, or seconds from now; `null` (PATCH) clears it. */
export interface ExpiryInput {
  expiresAt?: Date | null;
  ttlSeconds?: number | null;
}

/**
 * The expiry an input asks for: undefined when it names none (a PATCH keeps the memory's), null for none, else
 * the instant, which must lie in the future and at most MAX_TTL_SECONDS ahead. A time already past is refused
 * rather than taken as "expire now": a clock or time zone mistake would otherwise make a memory vanish unseen.
 */
export function expiryOf(input: ExpiryInput, now = Date.now()): Date | null | undefined {
  const { expiresAt, ttlSeconds } = input;
  // both null is no expiry, said twice
  if (expiresAt !== undefined && ttlSeconds !== undefined && (expiresAt !== null || ttlSeconds !== null)) {
    throw invalid("expiresAt", "and ttlSeconds cannot both be given (one sets the other)");
  }
  if (ttlSeconds != null) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TTL_SECONDS) {
      throw invalid("ttlSeconds", TTL_RANGE);
    }
    return new Date(now + ttlSeconds * 1000);
  }
  if (expiresAt != null) {
    if (Number.isNaN(expiresAt.getTime())) throw invalid("expiresAt", "must be an ISO 8601 date and time");
    if (expiresAt.getTime() <= now) throw invalid("expiresAt", `must be in the future (it is ${expiresAt.toISOString()}, now is ${new Date(now).toISOString()})`);
    if (expiresAt.getTime() > now + MAX_TTL_SECONDS * 1000) throw invalid("expiresAt", "must be at most ten years ahead");
    return expiresAt;
  }
  return expiresAt === null || ttlSeconds === null ? null : undefined;
}

/**
 * SQL true for a memory that has not expired; `alias` is the memories table's name in the query, if any. The
 * database's clock decides, as it does for the sweeper (Prisma's condition below, and ttlSeconds, read the
 * process' clock: on one host, and always on the embedded database, the two are one clock).
 */
export const unexpiredSql = (alias?: string): string => {
  const column = alias ? `${alias}.expires_at` : "expires_at";
  return `(${column} IS NULL OR ${column} > now())`;
};

/** The same condition for Prisma, as of now. */
export const unexpired = (): Prisma.MemoryWhereInput => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] });
