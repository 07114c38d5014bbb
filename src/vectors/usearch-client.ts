import type { Logger } from "../logger.ts";
import { startModuleThread } from "../threads/module-thread.ts";
import { messageOnly, ThreadCaller } from "../threads/thread-calls.ts";
import type { IndexNotice, UsearchCalls } from "./usearch-calls.ts";
import type { VectorFilter, VectorHit, VectorIndex, VectorPoint } from "./vector-index.ts";

/**
 * The embedded vector index (usearch.ts) in a thread of its own (usearch-thread.ts), as the event loop's thread sees
 * it. usearch's calls hold the thread that makes them: an insert up to about 0.4 ms a point, a search's graph walk
 * 1-4 ms at 100 000 points, a save of that graph over 100 ms. On the event loop they held every request back
 * meanwhile; here they run beside it, for about 0.1-0.2 ms of CPU a call spent crossing (bench/README.md).
 */
export class UsearchThreadIndex extends ThreadCaller<UsearchCalls, { message: string }> implements VectorIndex {
  readonly kind = "usearch";

  /** The index, or undefined when usearch has no binary for this platform. `dir` undefined keeps no files. */
  static async open(dir: string | undefined, logger: Logger): Promise<UsearchThreadIndex | undefined> {
    const thread = new UsearchThreadIndex(
      startModuleThread(import.meta.url, { source: "./usearch-thread.ts", bundled: "./usearch-thread.mjs" }, {}),
      {
        holds: "the vector index",
        errors: messageOnly,
        failed: (reason) => logger.error({ err: reason }, "the vector index's thread failed: search by meaning is unavailable"),
        notice: (notice) => {
          const { level, fields, message } = notice as IndexNotice;
          logger[level](fields, message);
        },
      },
    );
    try {
      if (await thread.call("open", { dir })) return thread;
    } catch (error) {
      logger.warn({ err: error }, "the vector index could not start");
    }
    await thread.terminate();
    return undefined;
  }

  ensure(embedderId: string, dimensions: number): Promise<void> {
    return this.call("ensure", { embedderId, dimensions });
  }

  upsert(embedderId: string, points: readonly VectorPoint[]): Promise<void> {
    if (points.length === 0) return Promise.resolve();
    // without their metadata, which the index does not keep: less to copy across
    const indexed = points.map(({ metadata: _, ...point }) => point);
    return this.call("upsert", { embedderId, points: indexed });
  }

  delete(embedderId: string, ids: readonly string[]): Promise<void> {
    return ids.length === 0 ? Promise.resolve() : this.call("delete", { embedderId, ids });
  }

  /** Its points keep no metadata. */
  searchesWhere(): boolean {
    return false;
  }

  search(embedderId: string, vector: Float32Array, filter: VectorFilter, limit: number): Promise<VectorHit[]> {
    return this.call("search", { embedderId, vector, filter, limit });
  }

  scores(embedderId: string, userId: string, vector: Float32Array, ids: readonly string[]): Promise<VectorHit[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.call("scores", { embedderId, userId, vector, ids });
  }

  clear(embedderId: string): Promise<void> {
    return this.call("clear", { embedderId });
  }

  count(embedderId: string): Promise<number> {
    return this.call("count", { embedderId });
  }

  reconcile(embedderId: string, versions: ReadonlyMap<string, number>): Promise<{ stale: string[]; extra: string[] }> {
    return this.call("reconcile", { embedderId, versions });
  }

  /** Fails once the thread is gone: /readyz then says so. */
  async ping(): Promise<void> {
    if (this.unavailable) throw this.unavailable;
  }

  /** Saves the index and ends the thread. */
  close(): Promise<void> {
    return this.closeWith("close", {});
  }
}
