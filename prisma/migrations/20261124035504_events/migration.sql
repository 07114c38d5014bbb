-- CreateTable
CREATE TABLE "events" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "object_id" UUID NOT NULL,
    "thread_id" UUID,
    "data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- The events are written by triggers, once per statement, so that every write path (single and grouped creates,
-- batches, updates, deletes, a thread's delete with or without its memories) yields them in its own transaction.

-- timestamps as the API writes them (JavaScript's toISOString), whatever the session's time zone
CREATE FUNCTION "event_time"(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

CREATE FUNCTION "memory_event_data"(m "memories") RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'id', m."id", 'content', m."content", 'data', m."data", 'type', m."type", 'tags', to_jsonb(m."tags"),
    'metadata', m."metadata", 'threadId', m."thread_id", 'isArchived', m."is_archived",
    'workspaceId', m."workspace_id", 'legacyUserId', m."legacy_user_id",
    'createdAt', "event_time"(m."created_at"), 'updatedAt', "event_time"(m."updated_at"))
$$;

CREATE FUNCTION "thread_event_data"(t "threads") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', t."id", 'title', t."title", 'description', t."description", 'metadata', t."metadata",
    'status', t."status", 'createdAt', "event_time"(t."created_at"), 'updatedAt', "event_time"(t."updated_at"),
    'memoryCount', (SELECT count(*) FROM "memories" m WHERE m."thread_id" = t."id"))
$$;

CREATE FUNCTION "memories_write_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data")
    SELECT n."user_id", 'memory.created', n."id", n."thread_id", "memory_event_data"(n) FROM "new_rows" n;
  ELSIF TG_OP = 'UPDATE' THEN
    -- only what the API shows: the indexer's and the tokenizer's own columns are not a change to the memory
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data")
    SELECT n."user_id", 'memory.updated', n."id", coalesce(n."thread_id", o."thread_id"), "memory_event_data"(n)
      FROM "new_rows" n JOIN "old_rows" o ON o."id" = n."id"
     WHERE (n."content", n."data", n."type", n."tags", n."metadata", n."thread_id", n."is_archived", n."updated_at")
           IS DISTINCT FROM
           (o."content", o."data", o."type", o."tags", o."metadata", o."thread_id", o."is_archived", o."updated_at");
  ELSE
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id")
    SELECT o."user_id", 'memory.deleted', o."id", o."thread_id" FROM "old_rows" o;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION "threads_write_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id")
    SELECT o."user_id", 'thread.deleted', o."id", o."id" FROM "old_rows" o;
  ELSE
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data")
    SELECT n."user_id", CASE TG_OP WHEN 'INSERT' THEN 'thread.created' ELSE 'thread.updated' END, n."id", n."id",
           "thread_event_data"(n)
      FROM "new_rows" n;
  END IF;
  RETURN NULL;
END
$$;

-- one trigger per table and kind of write: PostgreSQL allows transition tables only on a trigger of one event
CREATE TRIGGER "memories_created_events" AFTER INSERT ON "memories"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "memories_write_events"();
CREATE TRIGGER "memories_updated_events" AFTER UPDATE ON "memories"
  REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "memories_write_events"();
CREATE TRIGGER "memories_deleted_events" AFTER DELETE ON "memories"
  REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "memories_write_events"();
CREATE TRIGGER "threads_created_events" AFTER INSERT ON "threads"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "threads_write_events"();
CREATE TRIGGER "threads_updated_events" AFTER UPDATE ON "threads"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "threads_write_events"();
CREATE TRIGGER "threads_deleted_events" AFTER DELETE ON "threads"
  REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "threads_write_events"();
