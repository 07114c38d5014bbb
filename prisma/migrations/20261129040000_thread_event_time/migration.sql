-- A thread's created and updated events are dated by the thread's own updated_at, as a memory's are: the API sets a
-- thread's times in the process (Prisma's @updatedAt), a millisecond or two off the transaction's time that dated
-- the event, so an event's timestamp and its data's updatedAt disagreed.
CREATE OR REPLACE FUNCTION "threads_write_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id")
    SELECT o."user_id", 'thread.deleted', o."id", o."id" FROM "old_rows" o;
  ELSE
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data", "created_at")
    SELECT n."user_id", CASE TG_OP WHEN 'INSERT' THEN 'thread.created' ELSE 'thread.updated' END, n."id", n."id",
           "thread_event_data"(n), n."updated_at"
      FROM "new_rows" n;
  END IF;
  RETURN NULL;
END
$$;
