-- An event and a version of a memory are dated by the database's clock as the trigger writes them, after the row's
-- lock, rather than by their transaction's start: a change that waited for a concurrent one to commit was dated
-- before it (the memory's updated_at likewise, set by the writes themselves: RISEN_UPDATED_AT in memory-rows.ts).
-- AlterTable
ALTER TABLE "events" ALTER COLUMN "created_at" SET DEFAULT clock_timestamp();

-- AlterTable
ALTER TABLE "memory_versions" ALTER COLUMN "changed_at" SET DEFAULT clock_timestamp();
