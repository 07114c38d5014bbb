-- A memory moved from one thread to another: its memory.updated event names the new thread (thread_id) and now
-- the one it left as well, so that a subscriber to that thread hears that the memory left it.
ALTER TABLE "events" ADD COLUMN "previous_thread_id" UUID;

CREATE OR REPLACE FUNCTION "memories_write_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data")
    SELECT n."user_id", 'memory.created', n."id", n."thread_id", "memory_event_data"(n) FROM "new_rows" n;
    -- version 1, unless the id has a history already: a deleted memory whose history is kept, stored again by an
    -- import under its exported id, goes on from its last version
    INSERT INTO "memory_versions" ("memory_id", "version", "user_id", "action", "key_id")
    SELECT n."id", coalesce((SELECT max(v."version") FROM "memory_versions" v WHERE v."memory_id" = n."id"), 0) + 1,
           n."user_id", 'created', n."written_by_key"
      FROM "new_rows" n;
  ELSIF TG_OP = 'UPDATE' THEN
    -- only what the API shows: the indexer's and the tokenizer's own columns are not a change to the memory
    WITH "changed" AS (
      SELECT n."id", n."user_id", coalesce(n."thread_id", o."thread_id") AS "thread_id",
             CASE WHEN n."thread_id" IS DISTINCT FROM o."thread_id" THEN o."thread_id" END AS "previous_thread_id",
             n."written_by_key",
             CASE WHEN n."is_archived" AND NOT o."is_archived" THEN 'archived'
                  WHEN o."is_archived" AND NOT n."is_archived" THEN 'unarchived'
                  ELSE 'updated' END AS "action",
             "memory_event_data"(o) AS "before", "memory_event_data"(n) AS "after"
        FROM "new_rows" n JOIN "old_rows" o ON o."id" = n."id"
       WHERE (n."content", n."data", n."type", n."tags", n."metadata", n."thread_id", n."is_archived", n."updated_at")
             IS DISTINCT FROM
             (o."content", o."data", o."type", o."tags", o."metadata", o."thread_id", o."is_archived", o."updated_at")
    ), "evented" AS (
      INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "previous_thread_id", "data")
      SELECT c."user_id", 'memory.updated', c."id", c."thread_id", c."previous_thread_id", c."after" FROM "changed" c
    )
    INSERT INTO "memory_versions" ("memory_id", "version", "user_id", "action", "key_id", "before")
    SELECT c."id", coalesce((SELECT max(v."version") FROM "memory_versions" v WHERE v."memory_id" = c."id"), 0) + 1,
           c."user_id", c."action", c."written_by_key", c."before"
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
