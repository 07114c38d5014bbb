import { statfsSync } from "node:fs";

/**
 * Below this much free space on the data directory's disk the embedded database writes nothing (503: its statements
 * that write are refused before they reach it), neither checkpoints nor vacuums, and /readyz says "degraded": a WAL
 * segment or a checkpoint that cannot be written stops single-user PostgreSQL for good (PANIC), every request
 * hanging until a restart, even once space is freed (outside probe, a full disk). A WAL segment is 16 MB.
 */
export const LOW_DISK_BYTES = 64 * 1024 * 1024;
const READ_EVERY_MS = 1_000;

/** The free space of the disk that holds a directory, read at most once a second. */
export class DiskSpace {
  private read = -Infinity;
  private bytes: number | undefined;

  constructor(private readonly dir: string) {}

  /** Bytes free to this process; undefined when the disk cannot be asked (a memory:// database, no statfs). */
  free(): number | undefined {
    const now = performance.now();
    if (now - this.read < READ_EVERY_MS) return this.bytes;
    this.read = now;
    try {
      const stats = statfsSync(this.dir);
      this.bytes = Number(stats.bavail) * Number(stats.bsize);
    } catch {
      this.bytes = undefined;
    }
    return this.bytes;
  }

  low(): boolean {
    const free = this.free();
    return free !== undefined && free < LOW_DISK_BYTES;
  }
}
