-- AlterTable
ALTER TABLE "memories" ADD COLUMN     "written_by_key" UUID;

-- CreateTable
CREATE TABLE "memory_versions" (
    "memory_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "user_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "key_id" UUID,
    "before" JSONB,
    "after" JSONB,

    CONSTRAINT "memory_versions_pkey" PRIMARY KEY ("memory_id","version")
);

-- CreateIndex
CREATE INDEX "memory_versions_changed_at_idx" ON "memory_versions"("changed_at");

-- Versions are written by the triggers that write the events (one statement-level trigger per kind of write), so
-- every write path yields them in its own transaction. The key is the row's written_by_key, which every insert
-- and update sets; a delete names its key in the transaction-local setting memory_service.key_id.
CREATE OR REPLACE FUNCTION "memories_write_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data")
    SELECT n."user_id", 'memory.created', n."id", n."thread_id", "memory_event_data"(n) FROM "new_rows" n;
    -- version 1, unless the id has a history already: a deleted memory whose history is kept, stored again by an
    -- import under its exported id, goes on from its last version
    INSERT INTO "memory_versions" ("memory_id", "version", "user_id", "action", "key_id", "after")
    SELECT n."id", coalesce((SELECT max(v."version") FROM "memory_versions" v WHERE v."memory_id" = n."id"), 0) + 1,
           n."user_id", 'created', n."written_by_key", "memory_event_data"(n)
      FROM "new_rows" n;
  ELSIF TG_OP = 'UPDATE' THEN
    -- only what the API shows: the indexer's and the tokenizer's own columns are not a change to the memory
    WITH "changed" AS (
      SELECT n."id", n."user_id", coalesce(n."thread_id", o."thread_id") AS "thread_id", n."written_by_key",
             CASE WHEN n."is_archived" AND NOT o."is_archived" THEN 'archived'
                  WHEN o."is_archived" AND NOT n."is_archived" THEN 'unarchived'
                  ELSE 'updated' END AS "action",
             "memory_event_data"(o) AS "before", "memory_event_data"(n) AS "after"
        FROM "new_rows" n JOIN "old_rows" o ON o."id" = n."id"
       WHERE (n."content", n."data", n."type", n."tags", n."metadata", n."thread_id", n."is_archived", n."updated_at")
             IS DISTINCT FROM
             (o."content", o."data", o."type", o."tags", o."metadata", o."thread_id", o."is_archived", o."updated_at")
    ), "evented" AS (
      INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data")
      SELECT c."user_id", 'memory.updated', c."id", c."thread_id", c."after" FROM "changed" c
    )
    INSERT INTO "memory_versions" ("memory_id", "version", "user_id", "action", "key_id", "before", "after")
    SELECT c."id", coalesce((SELECT max(v."version") FROM "memory_versions" v WHERE v."memory_id" = c."id"), 0) + 1,
           c."user_id", c."action", c."written_by_key", c."before", c."after"
      FROM "changed" c;
  ELSE
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id")
    SELECT o."user_id", 'memory.deleted', o."id", o."thread_id" FROM "old_rows" o;
    INSERT INTO "memory_versions" ("memory_id", "version", "user_id", "action", "key_id", "before")
    SELECT o."id",
           coalesce((SELECT max(v."version") FROM "memory_versions" v WHERE v."memory_id" = o."id"), 0) + 1,
           o."user_id", 'deleted', nullif(current_setting('memory_service.key_id', true), '')::uuid, "memory_event_data"(o)
      FROM "old_rows" o;
  END IF;
  RETURN NULL;
END
$$;
