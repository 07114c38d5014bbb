/**
 * Search settings for every database session: HNSW looks at 100 candidates (enough for the largest page of
 * 100), and keeps scanning when filters (another user's points, say) discard candidates, instead of returning
 * short. Relaxed order is fine: callers sort by score. Here, not in vectors/, because the connection pool
 * sets them on each new connection.
 */
export const PGVECTOR_SESSION_SETTINGS: Record<string, string> = {
  "hnsw.ef_search": "100",
  "hnsw.iterative_scan": "relaxed_order",
};
