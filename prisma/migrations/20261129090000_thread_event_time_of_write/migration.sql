-- A thread's created and updated events are dated by the thread's updated_at only when that is the write's own time
-- (the API sets a thread's times in the process, a millisecond or two off the transaction's): an import keeps the
-- times its file gives, months old, and its event was dated then, not when the change was made. A minute covers a
-- write that waited for a lock; past it, or with the process' and the database's clocks apart, the event is dated by
-- the transaction, as a memory's event is.
CREATE OR REPLACE FUNCTION "threads_write_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id")
    SELECT o."user_id", 'thread.deleted', o."id", o."id" FROM "old_rows" o;
  ELSE
    INSERT INTO "events" ("user_id", "type", "object_id", "thread_id", "data", "created_at")
    SELECT n."user_id", CASE TG_OP WHEN 'INSERT' THEN 'thread.created' ELSE 'thread.updated' END, n."id", n."id",
           "thread_event_data"(n),
           CASE WHEN n."updated_at" BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '1 minute'
                THEN n."updated_at" ELSE now() END
      FROM "new_rows" n;
  END IF;
  RETURN NULL;
END
$$;
