import { afterAll, describe, expect, it, vi } from "vitest";
import type { Worker } from "node:worker_threads";
import { EncoderPool } from "../../src/embeddings/encoder-pool.ts";

describe("the encoder pool", () => {
  const pool = new EncoderPool({ threads: 2, idleMs: 300, batchSize: { interactive: 16, background: 8 } });
  afterAll(() => pool.close());

  // 400 texts: enough work that the second thread is up before it is done (about 3 s on a quiet 2-core machine,
  // over 30 s on a loaded one)
  it("starts with one thread, adds the second while work waits, and stops it again once idle", { timeout: 120_000 }, async () => {
    expect(pool.size).toBe(1);
    await pool.dimensions;
    const texts = Array.from({ length: 400 }, (_, i) => `a memory to embed in the background, number ${i}`);
    let peak = 1;
    const watch = setInterval(() => (peak = Math.max(peak, pool.size)), 20);
    const vectors = await pool.embed(texts, "background");
    clearInterval(watch);
    expect(vectors).toHaveLength(400);
    expect(peak).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pool.size).toBe(1);
    // and what comes next is still embedded, by the thread that stayed
    expect(await pool.embed(["one more"], "interactive")).toHaveLength(1);
  });

  it("hands the first thread's place to a fresh one once it has embedded enough and sits idle", { timeout: 120_000 }, async () => {
    const renewing = new EncoderPool({ threads: 1, idleMs: 200, renewAfter: 20, batchSize: { interactive: 16, background: 8 } });
    try {
      await renewing.dimensions;
      const [first] = renewing.threadIds;
      const texts = Array.from({ length: 10 }, (_, i) => `a memory to embed, number ${i}`);
      const before = await renewing.embed(texts, "background");
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(renewing.threadIds).toEqual([first]); // 10 texts: not worn yet
      await renewing.embed(texts, "background");
      await vi.waitFor(() => expect(renewing.threadIds).not.toEqual([first]), { timeout: 60_000, interval: 50 });
      expect(renewing.size).toBe(1);
      // the fresh thread runs the same model
      expect(await renewing.embed(texts, "interactive")).toEqual(before);
    } finally {
      await renewing.close();
    }
  });

  // a search answered 503 when the thread embedding its query stopped under it (seen once under a loaded suite)
  it("embeds again, on the thread that replaces it, the texts of a thread that died mid-batch", { timeout: 120_000 }, async () => {
    const dying = new EncoderPool({ threads: 1, idleMs: 200, batchSize: { interactive: 16, background: 8 } });
    try {
      await dying.dimensions;
      const texts = ["what was the name of my first dog?", "where did I go on holiday last summer?"];
      const expected = await dying.embed(texts, "interactive");
      // the pool's own thread, reached as the pool holds it: nothing outside the pool can stop one
      const [thread] = (dying as unknown as { threads: { worker: Worker; batch: unknown[] }[] }).threads;
      const died = thread!.worker.threadId;
      const embedding = dying.embed(texts, "interactive");
      expect(thread!.batch).toHaveLength(1); // dispatched at once: the batch is in flight
      await thread!.worker.terminate();
      expect(await embedding).toEqual(expected);
      expect(dying.threadIds).not.toContain(died);
      expect(dying.size).toBe(1);
    } finally {
      await dying.close();
    }
  });
});
