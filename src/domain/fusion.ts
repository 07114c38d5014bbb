/**
 * How the lexical (BM25) and semantic (sentence-vector) rankings become one. Both are tuned on the LoCoMo
 * development split (bench/README.md, "Fusion"); the two differ on purpose:
 *
 *  - recall ranks by reciprocal rank fusion, which trusts each list's order and not its scores: best for
 *    conversational questions, where the wording of the answer and the question overlap in part;
 *  - search blends the scores themselves (plain BM25 and cosine), so a memory that alone holds a rare query
 *    word stays first however near-identical memories the vector side ranks above it, and a paraphrase that
 *    shares no word with its memory is ranked by meaning. Its share of BM25 was chosen on LoCoMo together with
 *    the paraphrase and rare-word tests (test/integration), which LoCoMo alone would not protect.
 */

export interface RankedHit {
  id: string;
  /** 1 for the best */
  rank: number;
}

export interface ScoredHit {
  id: string;
  score: number;
}

export interface Fused {
  id: string;
  /** 0 to 1, descending */
  relevance: number;
}

// RRF: score = Σ weight / (K + rank), each list read to RRF_DEPTH. K = 20 and the vector list at half BM25's
// weight sit in the middle of the plateau found on LoCoMo (recall@10 0.755–0.77 for K 15–30, weight 0.4–0.6).
export const RRF_K = 20;
export const RRF_DEPTH = 100;

/** Fuses ranked lists; relevance is the fused score over the best score the lists that ran allow. */
export function reciprocalRankFusion(lists: { weight: number; hits: RankedHit[] }[], k = RRF_K): Fused[] {
  const ran = lists.filter((list) => list.hits.length > 0);
  const best = ran.reduce((sum, list) => sum + list.weight / (k + 1), 0);
  const scores = new Map<string, number>();
  for (const { weight, hits } of ran) {
    for (const hit of hits.slice(0, RRF_DEPTH)) scores.set(hit.id, (scores.get(hit.id) ?? 0) + weight / (k + hit.rank));
  }
  return sorted([...scores].map(([id, score]) => ({ id, relevance: best > 0 ? score / best : 0 })));
}

// BM25's share of search's score. A memory holding the query's one rare word gets 0.3 from it, which near-identical
// memories ranked by their vectors alone cannot make up (their cosines differ by hundredths); a memory sharing a
// chance word with a question gets a small part of 0.3, which a memory that means the answer overtakes.
export const LEXICAL_SHARE = 0.3;

/**
 * Search's blend: LEXICAL_SHARE of the memory's BM25 score over the query's weight (`searchWords` in
 * sql-terms.ts: what a memory holding every term once would score), capped at 1, plus the rest of the cosine
 * similarity (below 0 counts as 0). 0 to 1. A lexical hit that `semantic` does not score has no vector yet (on
 * PostgreSQL, until the background embeds it: no drafts there): it is scored by its words alone, on the whole scale,
 * rather than by their share, under which any memory of a modest cosine ranked above the only one holding the
 * query's word (outside probe).
 */
export function blendScores(lexical: ScoredHit[], queryWeight: number, semantic: ScoredHit[], share = LEXICAL_SHARE): Fused[] {
  const scores = new Map<string, number>();
  const measured = new Set(semantic.map((hit) => hit.id));
  if (queryWeight > 0) {
    for (const hit of lexical) scores.set(hit.id, (measured.has(hit.id) ? share : 1) * Math.min(1, hit.score / queryWeight));
  }
  for (const hit of semantic) scores.set(hit.id, (scores.get(hit.id) ?? 0) + (1 - share) * Math.min(1, Math.max(0, hit.score)));
  return sorted([...scores].map(([id, relevance]) => ({ id, relevance })));
}

const sorted = (hits: Fused[]): Fused[] => hits.sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : 1));
