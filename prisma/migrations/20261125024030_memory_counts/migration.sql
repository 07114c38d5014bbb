-- CreateTable
CREATE TABLE "memory_counts" (
    "user_id" UUID NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "memory_counts_pkey" PRIMARY KEY ("user_id")
);

-- CreateIndex
CREATE INDEX "memories_user_id_expires_at_idx" ON "memories"("user_id", "expires_at");
-- Each statement that inserts or deletes memories adds its count per user, once, whatever the number of rows
-- (users in order: two statements that change several users' counts lock their rows in the same order).
CREATE FUNCTION "memory_counts_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "memory_counts" ("user_id", "count")
    SELECT "user_id", count(*) FROM "new_rows" GROUP BY "user_id" ORDER BY "user_id"
    ON CONFLICT ("user_id") DO UPDATE SET "count" = "memory_counts"."count" + excluded."count";
  ELSE
    INSERT INTO "memory_counts" ("user_id", "count")
    SELECT "user_id", -count(*) FROM "old_rows" GROUP BY "user_id" ORDER BY "user_id"
    ON CONFLICT ("user_id") DO UPDATE SET "count" = "memory_counts"."count" + excluded."count";
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "memories_counted_inserts" AFTER INSERT ON "memories"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "memory_counts_follow"();
CREATE TRIGGER "memories_counted_deletes" AFTER DELETE ON "memories"
  REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "memory_counts_follow"();

-- Counted after the triggers exist: creating them waits for the writes in flight on memories and holds back new
-- ones until this migration commits, so no write is counted twice or missed.
INSERT INTO "memory_counts" ("user_id", "count") SELECT "user_id", count(*) FROM "memories" GROUP BY "user_id";
