-- AlterTable
ALTER TABLE "memories" ADD COLUMN     "content_key" TEXT;

-- CreateIndex
CREATE INDEX "memories_user_id_content_key_idx" ON "memories"("user_id", "content_key");
