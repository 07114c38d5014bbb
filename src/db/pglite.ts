import type { Logger } from "../logger.ts";
import type { DataDirHolder } from "./data-dir-lock.ts";
import { openDataDir } from "./data-dir.ts";
import { DiskSpace } from "./disk-space.ts";
import type { Database, PrismaAdapterWrapper } from "./database.ts";
import { migrate } from "./migrate.ts";
import { PGliteThread, threadAdapterFactory, threadSql } from "./pglite-client.ts";
import { seedDataDir } from "./pglite-template.ts";
import { databaseOf } from "./prisma-database.ts";

export interface PGliteOptions {
  /** Who opens it, for its lock: a server, or (by default) a CLI command or a script. */
  holder?: DataDirHolder;
  /** shared_buffers, in MB. */
  sharedBuffersMb?: number;
  wrapAdapter?: PrismaAdapterWrapper;
}

/**
 * Opens (creating and migrating if needed) the embedded database; `memory://` keeps it in memory. PostgreSQL runs
 * in a thread of its own (pglite-thread.ts); this process holds the data directory's lock.
 */
export async function openPGlite(dataDir: string, logger?: Logger, options: PGliteOptions = {}): Promise<Database> {
  const inMemory = dataDir.startsWith("memory://");
  const lock = inMemory ? undefined : openDataDir(dataDir, options.holder ?? "command", logger);
  let thread: PGliteThread | undefined;
  try {
    if (!inMemory) seedDataDir(dataDir);
    thread = await PGliteThread.open({ dataDir, sharedBuffersMb: options.sharedBuffersMb }, logger);
    const disk = inMemory ? undefined : new DiskSpace(dataDir);
    if (disk) thread.refuseWrites = () => disk.low();
    const sql = threadSql(thread);
    await migrate(sql, logger);
    const opened = thread;
    const database = databaseOf(
      "pglite",
      sql,
      threadAdapterFactory(opened),
      async () => {
        await opened.close();
        lock?.release();
      },
      options.wrapAdapter,
    );
    return { ...database, disk };
  } catch (error) {
    await thread?.close().catch(() => undefined);
    lock?.release();
    throw error;
  }
}
