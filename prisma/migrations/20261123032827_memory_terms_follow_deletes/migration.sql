-- DropForeignKey
ALTER TABLE "memory_terms" DROP CONSTRAINT "memory_terms_memory_id_fkey";

-- Terms go with their memory, however it is deleted (one by one, with its thread, with its user), once per
-- statement rather than through a foreign key checked for every term inserted.
CREATE FUNCTION "memory_terms_follow_deletes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "memory_terms" t USING "gone" g WHERE t."memory_id" = g."id";
  RETURN NULL;
END
$$;

CREATE TRIGGER "memories_delete_terms" AFTER DELETE ON "memories"
  REFERENCING OLD TABLE AS "gone" FOR EACH STATEMENT EXECUTE FUNCTION "memory_terms_follow_deletes"();
