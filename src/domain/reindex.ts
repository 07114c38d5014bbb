import type { Database } from "../db/database.ts";
import { pageIndexRows, type Indexer } from "./indexer.ts";

const PAGE = 256;

export interface ReindexProgress {
  done: number;
  total: number;
  embedded: number;
}

/**
 * Rebuilds the vector index of the current embedder from the database: empties it, then walks every memory.
 * Stored vectors are reused; only memories without a vector of the current embedder (a new embedder, or an
 * embedding that failed) are embedded, in batches.
 */
export async function reindex(
  db: Database,
  indexer: Indexer,
  onProgress: (progress: ReindexProgress) => void = () => {},
): Promise<ReindexProgress> {
  const { embedder, index } = indexer;
  await index.clear(embedder.id);
  const total = await db.prisma.memory.count();
  const progress = { done: 0, total, embedded: 0 };
  onProgress(progress);
  for (let after: string | undefined; ; ) {
    const rows = await pageIndexRows(db, after, PAGE);
    if (rows.length === 0) break;
    const stale = rows.filter((row) => !row.embedding || row.embedder !== embedder.id);
    if (stale.length) {
      await indexer.storeEmbeddings(stale, await embedder.embed(stale.map((row) => row.content)));
      progress.embedded += stale.length;
    }
    await indexer.upsertRows(rows);
    progress.done += rows.length;
    onProgress(progress);
    after = rows[rows.length - 1]!.id;
  }
  return progress;
}
