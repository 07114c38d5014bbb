import type { Database } from "../db/database.ts";
import type { Logger } from "../logger.ts";
import { unexpiredSql } from "./expiry.ts";
import { LEXICAL_VERSION } from "./lexical.ts";
import { UserTerms, type MemoryTerms } from "./user-terms.ts";

// Postings held for all users together: past it, the users least recently recalled are let go, and a user with
// more than this alone is left to SQL. All told a posting costs about 50 bytes of heap and array buffers (39 MB for
// 100 000 memories of 8 terms each, bench:recall's), so at most about 100 MB.
const MAX_POSTINGS = 2_000_000;
// memories read a statement while a copy is built: a page's rows are small, and the event loop gets a turn between
const PAGE = 2_000;
// more memories changed at once than this (a large batch, a thread deleted with its memories) and the copy is
// built again rather than caught up
const MAX_CHANGED = 10_000;
// a copy that could not be built (terms of an older tokenizer, not yet made again) is tried again after this long,
// not at every recall; one over the budget after much longer: each try reads MAX_POSTINGS of the user's terms
// before it gives up, statements the embedded database runs one at a time (outside probe: every minute, at a
// million memories)
const RETRY_MS = 60_000;
// an estimate of a user's postings this many times the budget is taken at its word: the copy is not tried (a user's
// memories may hold more or fewer terms than the average the estimate goes by)
const PLAINLY_TOO_LARGE = 1.5;
const TOO_LARGE_RETRY_MS = 3_600_000;

interface Entry {
  terms?: UserTerms;
  /** memories written since the copy read them: read again before the copy answers */
  changed: Set<string>;
  catchingUp?: Promise<void>;
  failedAt?: number;
  /** How long after failedAt the copy is tried again. */
  retryMs?: number;
}

/**
 * A user's memories with their terms, as the copy reads them: what one page or one catch-up holds. Expired ones
 * are left out; the copy lets the others go at their expiry (UserTerms.dropExpired).
 */
const READ_SQL = (where: string) => `
  SELECT m.id, m.thread_id AS "threadId", m.is_archived AS "isArchived", m.lexical_version AS version,
         m.expires_at AS "expiresAt", coalesce(t.terms, '{}') AS terms, coalesce(t.tfs, '{}') AS tfs
    FROM memories m
    LEFT JOIN LATERAL (SELECT array_agg(term) AS terms, array_agg(tf) AS tfs FROM memory_terms WHERE memory_id = m.id) t ON true
   WHERE ${where} AND ${unexpiredSql("m")}`;

type Read = MemoryTerms & { version: number | null };

/**
 * Recall's and search's BM25 on the embedded database without SQL: each user's memory_terms copied into this
 * process (UserTerms) the first time the user recalls or searches, and kept in step with their writes, which all
 * pass through ListTotals.changed with the memories they touched. PGlite runs one statement at a time (in its
 * thread), and BM25's statements over the postings of common terms were most of a recall's time (and of a
 * search's: 180 ms at 100 000 memories); scoring the copy takes a fraction of that. Only where this process is the
 * only writer (Database.singleWriter).
 *
 * While a user's copy is being built, and whenever it cannot be, both read the database as before (SqlTerms,
 * searchWords).
 */
export class TermIndex {
  /** by recency of use, least recent first */
  private readonly users = new Map<string, Entry>();

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    /** Postings held for all users together (a test's own, smaller). */
    private readonly maxPostings = MAX_POSTINGS,
  ) {}

  /** Call once a write to these memories of the user has committed. */
  changed(userId: string, memoryIds: readonly string[]): void {
    const entry = this.users.get(userId);
    // a copy that failed holds nothing to catch up: its writes would only end its wait for the next try
    if (!entry || entry.failedAt !== undefined) return;
    memoryIds.forEach((id) => entry.changed.add(id.toLowerCase())); // as the copy holds them, whatever the request said
    if (entry.changed.size > MAX_CHANGED) this.users.delete(userId);
  }

  /** The user's copy, caught up with this process' writes; undefined while it is being built or cannot be. */
  async of(userId: string): Promise<UserTerms | undefined> {
    const entry = this.users.get(userId);
    if (!entry || (entry.failedAt !== undefined && Date.now() - entry.failedAt > (entry.retryMs ?? RETRY_MS))) {
      this.start(userId);
      return undefined;
    }
    if (!entry.terms) return undefined;
    this.users.delete(userId);
    this.users.set(userId, entry);
    while (entry.changed.size > 0 && this.users.get(userId) === entry) {
      entry.catchingUp ??= this.catchUp(userId, entry).finally(() => (entry.catchingUp = undefined));
      await entry.catchingUp;
    }
    if (this.users.get(userId) !== entry) return undefined;
    entry.terms.dropExpired(Date.now());
    return entry.terms;
  }

  /** Postings held for all users: what the copies cost in memory. */
  get postingCount(): number {
    let total = 0;
    for (const entry of this.users.values()) total += entry.terms?.postingCount ?? 0;
    return total;
  }

  private start(userId: string): void {
    // writes from now on are noted, so that what a page read before them is read again
    const entry: Entry = { changed: new Set() };
    this.users.set(userId, entry);
    this.build(userId).then(
      (terms) => {
        if (this.users.get(userId) !== entry) return;
        if (terms === "too large") {
          this.logger.info({ userId }, "the user's terms are more than the in-process copy holds; recall and search read them from the database");
          entry.retryMs = TOO_LARGE_RETRY_MS;
          entry.failedAt = Date.now();
        } else if (terms) {
          entry.terms = terms;
          this.evict(userId);
        } else entry.failedAt = Date.now();
      },
      (error: unknown) => {
        this.logger.warn({ err: error, userId }, "could not copy the user's terms; recall reads them from the database");
        if (this.users.get(userId) === entry) entry.failedAt = Date.now();
      },
    );
  }

  /** The user's copy; undefined when it cannot be made now, "too large" past the budget. */
  private async build(userId: string): Promise<UserTerms | undefined | "too large"> {
    if (await this.plainlyTooLarge(userId)) return "too large";
    const terms = new UserTerms();
    for (let after = "00000000-0000-0000-0000-000000000000"; ; ) {
      const page = await this.db.sql.query<Read>(
        `${READ_SQL("m.user_id = $1::uuid AND m.id > $2::uuid")} ORDER BY m.id LIMIT ${PAGE}`,
        [userId, after],
      );
      if (page.some((memory) => memory.version !== LEXICAL_VERSION)) return undefined; // terms not yet made again
      page.forEach((memory) => terms.put(memory));
      if (terms.postingCount > this.maxPostings) return "too large";
      if (page.length < PAGE) return terms;
      after = page[page.length - 1]!.id;
    }
  }

  /**
   * Whether the user's postings, estimated from their memory count and the tables' average, are well past the
   * budget: reading pages until the budget was passed cost 56 statements of ~280 ms at 300 000 memories (bench:recall),
   * every user's statements waiting between them. Unknown (tables never analysed) is not "too large".
   */
  private async plainlyTooLarge(userId: string): Promise<boolean> {
    const [row] = await this.db.sql.query<{ estimate: number | null }>(
      `SELECT c.count * t.reltuples / nullif(m.reltuples, 0) AS estimate
         FROM memory_counts c, pg_class m, pg_class t
        WHERE c.user_id = $1::uuid AND m.oid = 'memories'::regclass AND t.oid = 'memory_terms'::regclass AND m.reltuples > 0 AND t.reltuples >= 0`,
      [userId],
    );
    return row?.estimate != null && Number(row.estimate) > this.maxPostings * PLAINLY_TOO_LARGE;
  }

  /** Reads again the memories written since the copy last read them. */
  private async catchUp(userId: string, entry: Entry): Promise<void> {
    const ids = [...entry.changed];
    entry.changed.clear();
    const rows = await this.db.sql
      .query<Read>(READ_SQL("m.id = ANY($1::uuid[]) AND m.user_id = $2::uuid"), [ids, userId])
      .catch((error: unknown) => void this.logger.warn({ err: error, userId }, "could not read the user's new terms"));
    if (this.users.get(userId) !== entry) return;
    // else dropped, to be built again: a copy that missed a write would rank by what is no longer there
    if (!rows || rows.some((memory) => memory.version !== LEXICAL_VERSION)) {
      this.users.delete(userId);
      return;
    }
    ids.forEach((id) => entry.terms!.remove(id));
    rows.forEach((memory) => entry.terms!.put(memory));
  }

  /** Lets the least recently used copies go while all of them hold more than MAX_POSTINGS; never `keep`'s. */
  private evict(keep: string): void {
    let total = this.postingCount;
    for (const [userId, entry] of this.users) {
      if (total <= this.maxPostings) return;
      if (userId === keep || !entry.terms) continue;
      total -= entry.terms.postingCount;
      this.users.delete(userId);
    }
  }
}
