import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import type { Logger } from "../../src/logger.ts";
import { UsearchThreadIndex } from "../../src/vectors/usearch-client.ts";
import type { VectorFilter, VectorPoint } from "../../src/vectors/vector-index.ts";
import { databaseUnderTest } from "../support/server.ts";

// The embedded vector index runs in a thread of its own (src/vectors/usearch-thread.ts): what crosses must behave
// as the index did on the event loop's thread, its log lines must reach the service's log, and a thread that dies
// must fail the calls after it rather than leave them waiting.

const EMBEDDER = "thread-test-embedder";
const DIMENSIONS = 8;
const USER = "00000000-0000-4000-8000-000000000001";
const OTHER = "00000000-0000-4000-8000-000000000002";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "usearch-thread-"));
  dirs.push(dir);
  return dir;
};

interface Logged {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(): { logger: Logger; lines: Logged[] } {
  const lines: Logged[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
  return { logger: { warn: at("warn"), error: at("error"), info: at("info"), debug: at("debug") } as unknown as Logger, lines };
}

/** A unit vector along axis `axis`, a little towards the next one. */
function axisVector(axis: number, lean = 0): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  v[axis % DIMENSIONS] = 1;
  v[(axis + 1) % DIMENSIONS] = lean;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function point(i: number, userId = USER): VectorPoint {
  return {
    id: `00000000-0000-4000-9000-${String(i).padStart(12, "0")}`,
    userId,
    vector: axisVector(i, 0.1),
    type: i % 2 === 0 ? "observation" : "preference",
    tags: i % 3 === 0 ? ["three"] : [],
    threadId: null,
    isArchived: false,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
    metadata: { i },
    version: 1,
  };
}

// the index of the embedded database only: servers on PostgreSQL never run it
describe.skipIf(databaseUnderTest() !== "pglite")("the vector index's thread", () => {
  it("answers as the index does, keeps one user's points from another's, and saves on close", async () => {
    const dir = newDir();
    const index = (await UsearchThreadIndex.open(dir, recordingLogger().logger))!;
    expect(index.kind).toBe("usearch");
    await index.ensure(EMBEDDER, DIMENSIONS);
    await index.upsert(EMBEDDER, [point(0), point(1), point(2), point(3), point(4, OTHER)]);

    const nearest = await index.search(EMBEDDER, axisVector(2), { userId: USER }, 2);
    expect(nearest.map((hit) => hit.id)).toEqual([point(2).id, point(1).id]);
    expect(nearest[0]!.score).toBeGreaterThan(0.99);
    const typed = await index.search(EMBEDDER, axisVector(2), { userId: USER, type: "preference" }, 5);
    expect(typed.map((hit) => hit.id).sort()).toEqual([point(1).id, point(3).id]);
    expect((await index.search(EMBEDDER, axisVector(4), { userId: USER }, 5)).map((hit) => hit.id)).not.toContain(point(4).id);

    await index.delete(EMBEDDER, [point(1).id]);
    expect(await index.count(EMBEDDER)).toBe(4);
    // what the database holds against what the index holds: point 0 changed since, point 9 never reached it
    const versions = new Map([
      [point(0).id, 2],
      [point(2).id, 1],
      [point(3).id, 1],
      [point(4).id, 1],
      [point(9).id, 1],
    ]);
    expect(await index.reconcile(EMBEDDER, versions)).toEqual({ stale: [point(0).id, point(9).id], extra: [] });
    await index.close();
    await expect(index.count(EMBEDDER)).rejects.toThrow(/vector index is closed/);

    const reopened = (await UsearchThreadIndex.open(dir, recordingLogger().logger))!;
    await reopened.ensure(EMBEDDER, DIMENSIONS);
    expect(await reopened.count(EMBEDDER)).toBe(4);
    expect((await reopened.search(EMBEDDER, axisVector(3), { userId: USER }, 1))[0]!.id).toBe(point(3).id);
    await reopened.close();
  });

  it("sends the thread's log lines to the service's log, with their errors", async () => {
    const dir = newDir();
    const first = (await UsearchThreadIndex.open(dir, recordingLogger().logger))!;
    await first.ensure(EMBEDDER, DIMENSIONS);
    await first.upsert(EMBEDDER, [point(0), point(1)]);
    await first.close();
    // the saved graph cut short: the partition is dropped (and rebuilt by the indexer), which the log says
    const space = join(dir, readdirSync(dir)[0]!);
    for (const file of readdirSync(space).filter((name) => name.endsWith(".usearch"))) {
      const graph = readFileSync(join(space, file));
      writeFileSync(join(space, file), graph.subarray(0, graph.length >> 1));
    }

    const { logger, lines } = recordingLogger();
    const second = (await UsearchThreadIndex.open(dir, logger))!;
    await second.ensure(EMBEDDER, DIMENSIONS);
    await second.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "warn", message: "could not load a saved vector partition; it will be rebuilt" });
    expect(lines[0]!.fields.userId).toBe(USER);
    expect(lines[0]!.fields.err).toMatchObject({ type: expect.stringMatching(/Error$/) as string, message: expect.stringMatching(/./) as string });
  });

  it("fails a call whose arguments cannot cross to the thread, and serves the next", async () => {
    const index = (await UsearchThreadIndex.open(undefined, recordingLogger().logger))!;
    try {
      await index.ensure(EMBEDDER, DIMENSIONS);
      await index.upsert(EMBEDDER, [point(0)]);
      const uncloneable = { userId: USER, where: () => true } as unknown as VectorFilter;
      await expect(index.search(EMBEDDER, axisVector(0), uncloneable, 1)).rejects.toThrow(/could not be cloned/);
      expect((await index.search(EMBEDDER, axisVector(0), { userId: USER }, 1))[0]!.id).toBe(point(0).id);
    } finally {
      await index.close();
    }
  });

  it("when its thread dies, fails every call and /readyz's ping from then on with the reason and logs it once", async () => {
    const { logger, lines } = recordingLogger();
    const index = (await UsearchThreadIndex.open(undefined, logger))!;
    await index.ensure(EMBEDDER, DIMENSIONS);
    await index.ping();
    await (index as unknown as { worker: Worker }).worker.terminate();
    await expect(index.search(EMBEDDER, axisVector(0), { userId: USER }, 1)).rejects.toThrow(/vector index's thread stopped/);
    await expect(index.upsert(EMBEDDER, [point(0)])).rejects.toThrow(/vector index's thread stopped/);
    await expect(index.ping()).rejects.toThrow(/vector index's thread stopped/);
    expect(lines.map((line) => `${line.level}: ${line.message}`)).toEqual([
      "error: the vector index's thread failed: search by meaning is unavailable",
    ]);
  });
});
