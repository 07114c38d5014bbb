-- The lists' index gains expires_at (its last key), so that a list's count can leave expired memories out
-- without reading each row.
-- DropIndex
DROP INDEX "memories_user_id_created_at_id_idx";

-- AlterTable
ALTER TABLE "memories" ADD COLUMN     "expires_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "memories_user_id_created_at_id_expires_at_idx" ON "memories"("user_id", "created_at" DESC, "id" DESC, "expires_at");

-- CreateIndex
CREATE INDEX "memories_expires_at_idx" ON "memories"("expires_at");

-- Events and history show a memory's expiry as GraphQL does (expiresAt, null for none).
CREATE OR REPLACE FUNCTION "memory_event_data"(m "memories") RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'id', m."id", 'content', m."content", 'data', m."data", 'type', m."type", 'tags', to_jsonb(m."tags"),
    'metadata', m."metadata", 'threadId', m."thread_id", 'isArchived', m."is_archived",
    'workspaceId', m."workspace_id", 'legacyUserId', m."legacy_user_id",
    'expiresAt', CASE WHEN m."expires_at" IS NULL THEN NULL ELSE "event_time"(m."expires_at") END,
    'createdAt', "event_time"(m."created_at"), 'updatedAt', "event_time"(m."updated_at"))
$$;

-- A thread's memory count leaves out its expired memories, as Thread.memoryCount does.
CREATE OR REPLACE FUNCTION "thread_event_data"(t "threads") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', t."id", 'title', t."title", 'description', t."description", 'metadata', t."metadata",
    'status', t."status", 'createdAt', "event_time"(t."created_at"), 'updatedAt', "event_time"(t."updated_at"),
    'memoryCount', (SELECT count(*) FROM "memories" m
                     WHERE m."thread_id" = t."id" AND (m."expires_at" IS NULL OR m."expires_at" > now())))
$$;
