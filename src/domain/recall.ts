import type { Principal } from "./principal.ts";
import type { Database } from "../db/database.ts";
import { invalid } from "../errors.ts";
import { tokenize } from "../text/tokenize.ts";
import { unexpired } from "./expiry.ts";
import { isUuid } from "./ids.ts";
import { reciprocalRankFusion, RRF_DEPTH } from "./fusion.ts";
import { searchLexical, type TermSource } from "./lexical.ts";
import { selecting, type Memory, type MemoryQuery } from "./memory.ts";
import { checkPage } from "./paging.ts";
import type { SearchFilter, SearchService } from "./search.ts";
import type { VectorFilter } from "../vectors/vector-index.ts";
import { SqlTerms } from "./sql-terms.ts";
import type { TermIndex } from "./term-index.ts";
import type { TermStats } from "./term-stats.ts";

/** Which way recall answered: documented in the README ("Recall"). */
export type RecallPath = "profile" | "thread" | "semantic" | "hybrid";

export interface RecalledMemory {
  memory: Memory;
  /** 0 to 1: 1 for a memory first in every list that ran. */
  relevance: number;
}

export interface RecallOutcome {
  results: RecalledMemory[];
  queryType: RecallPath;
}

export const DEFAULT_RECALL_LIMIT = 10;

// the weights of reciprocal rank fusion (fusion.ts): the vector list at half of BM25's, tuned on LoCoMo
const LEXICAL_WEIGHT = 1;
const VECTOR_WEIGHT = 0.5;

/** Questions about the user themself: answered from their preferences, without a vector search. */
const PROFILE_QUESTIONS = [
  /\b(what|which)\b.*\b(do|did|would)\s+i\s+(like|love|enjoy|prefer|want|hate|dislike)\b/,
  /\bmy\s+(preferences|likes|dislikes|interests|favou?rites?|tastes|hobbies)\b/,
  /\b(know|remember|tell\s+me|said)\s+about\s+(me|myself)\b/,
  /\babout\s+me\b/,
  /\bwho\s+am\s+i\b/,
];

/** Words of a profile question that say "about me" rather than what about (topic words remain). */
const PROFILE_WORDS = new Set(
  tokenize("like love enjoy prefer preferences want hate dislike likes dislikes interests favourite favorite favourites " +
    "favorites tastes taste hobbies hobby know remember tell said thing things about"),
);

export function isProfileQuestion(query: string): boolean {
  const text = query.toLowerCase().replace(/[’']/g, "'");
  return PROFILE_QUESTIONS.some((pattern) => pattern.test(text));
}

/**
 * Conversational, profile-aware lookup: a profile question is answered from preference memories; anything
 * else by BM25 over the memories' terms and by vector search, fused by reciprocal rank fusion, within a
 * thread when one is given.
 */
export class RecallService {
  constructor(
    private readonly db: Database,
    private readonly search: SearchService,
    private readonly stats: TermStats,
    /** the embedded database's copy of users' terms (term-index.ts); else, and meanwhile, BM25 runs in SQL */
    private readonly terms?: TermIndex,
  ) {}

  async recall(
    principal: Principal,
    query: string,
    limit: number | null | undefined,
    threadId: string | null | undefined,
    memoryQuery: MemoryQuery = {},
    filter: SearchFilter = {},
  ): Promise<RecallOutcome> {
    const text = this.search.checkQuery(query);
    const page = checkPage(limit, 0, DEFAULT_RECALL_LIMIT);
    if (threadId != null && !isUuid(threadId)) throw invalid("threadId", "must be a thread id");
    const thread = threadId ?? undefined;
    const scope = this.search.vectorFilter(principal, filter, thread);
    // a filter narrows the hybrid ranking; the profile path answers from all of the user's preferences
    const filtered = Object.keys(scope).length > (thread ? 2 : 1);

    if (!filtered && isProfileQuestion(text)) {
      const profile = await this.profile(principal, text, page.limit, thread, memoryQuery);
      if (profile.length) return { results: profile, queryType: "profile" };
    }
    const { hits, lexical } = await this.hybrid(principal, text, thread, scope);
    const results = await this.load(hits, page.limit, scope, filtered, memoryQuery);
    const queryType: RecallPath = thread ? "thread" : lexical ? "hybrid" : "semantic";
    return { results, queryType };
  }

  private async hybrid(principal: Principal, text: string, threadId: string | undefined, filter = this.search.vectorFilter(principal, {}, threadId)) {
    const [lexical, vector] = await Promise.all([
      this.termsOf(principal.userId).then((source) => searchLexical(source, text, RRF_DEPTH, threadId)),
      this.search.embedQuery(principal.userId, text).then((embedding) => this.search.nearest(embedding, filter, RRF_DEPTH)),
    ]);
    const hits = reciprocalRankFusion([
      { weight: LEXICAL_WEIGHT, hits: lexical },
      { weight: VECTOR_WEIGHT, hits: vector.map((hit, i) => ({ id: hit.id, rank: i + 1 })) },
    ]);
    return { hits, lexical: lexical.length > 0 };
  }

  private async termsOf(userId: string): Promise<TermSource> {
    return (await this.terms?.of(userId)) ?? new SqlTerms(this.db, this.stats, userId);
  }

  /**
   * The user's preferences: ranked against the question's topic when it has one ("what food do I like?"),
   * else newest first, all fully relevant.
   */
  private async profile(
    principal: Principal,
    text: string,
    limit: number,
    threadId: string | undefined,
    memoryQuery: MemoryQuery,
  ): Promise<RecalledMemory[]> {
    const topic = tokenize(text).filter((term) => !PROFILE_WORDS.has(term));
    // within a thread, the thread's preferences only: none (or a thread not the caller's) and recall goes on as for
    // any question in it
    const scope = { userId: principal.userId, type: "preference", ...(threadId ? { threadId } : {}) };
    const preferences = { ...scope, isArchived: false, ...unexpired() };
    // preferences the topic touches, in the order of the hybrid ranking, read by id rather than all of them (as
    // search and recall read their hits: grouped with concurrent reads, without Prisma's ~1 ms a query)
    const hits = topic.length ? (await this.hybrid(principal, topic.join(" "), threadId)).hits : [];
    const byId = await this.search.live(scope, hits.map((hit) => hit.id), memoryQuery, limit);
    const relevant = hits.filter((hit) => byId.has(hit.id)).slice(0, limit);
    // preferences the topic does not touch still answer the question, newest first, after the ones it does
    const rest =
      relevant.length < limit
        ? await this.db.prisma.memory.findMany({
            ...selecting(memoryQuery, "id"),
            where: { ...preferences, id: { notIn: relevant.map((hit) => hit.id) } },
            orderBy: [{ createdAt: "desc" }, { id: "desc" }],
            take: limit - relevant.length,
          })
        : [];
    return [
      ...relevant.map((hit) => ({ memory: byId.get(hit.id)!, relevance: hit.relevance })),
      ...rest.map((memory) => ({ memory, relevance: topic.length ? 0 : 1 })),
    ];
  }

  /**
   * The hits' rows, checked against the filter again (the index may hold a memory changed since). Lexical hits
   * are not filtered before: with a filter, every hit is read, as many may fall outside it.
   */
  private async load(
    hits: { id: string; relevance: number }[],
    limit: number,
    filter: VectorFilter,
    filtered: boolean,
    memoryQuery: MemoryQuery,
  ): Promise<RecalledMemory[]> {
    const wanted = filtered ? hits : hits.slice(0, limit + 10);
    const live = await this.search.live(filter, wanted.map((hit) => hit.id), memoryQuery, limit);
    return wanted
      .filter((hit) => live.has(hit.id))
      .slice(0, limit)
      .map((hit) => ({ memory: live.get(hit.id)!, relevance: hit.relevance }));
  }
}
