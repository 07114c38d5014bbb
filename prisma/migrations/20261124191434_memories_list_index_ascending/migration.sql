-- The lists' index in ascending order, which PostgreSQL reads backwards for newest first as well as forwards for
-- oldest first (exports). Descending, each new memory went to the front of its user's entries, where a full page
-- splits in half, so pages stayed half full (11.9 MB at 100 000 memories of one user); ascending, new memories
-- append at the end, where pages split to PostgreSQL's fill factor.

-- DropIndex
DROP INDEX "memories_user_id_created_at_id_expires_at_idx";

-- CreateIndex
CREATE INDEX "memories_user_id_created_at_id_expires_at_idx" ON "memories"("user_id", "created_at", "id", "expires_at");
