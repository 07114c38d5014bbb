import type { Database } from "../../src/db/database.ts";

/**
 * Waits until every memory has its vector and no index work is queued: the sentence encoder embeds writes in
 * the background. Throws after `seconds`, saying how much was left.
 */
export async function vectorsLanded(db: Database, seconds = 120): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const [row] = await db.sql.query<{ tasks: number; unembedded: number }>(
      `SELECT (SELECT count(*)::int FROM index_tasks) AS tasks,
              (SELECT count(*)::int FROM memories WHERE embedding IS NULL) AS unembedded`,
    );
    if (row!.tasks === 0 && row!.unembedded === 0) return;
    if (Date.now() > deadline) throw new Error(`vectors still missing after ${seconds} s: ${JSON.stringify(row)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
