-- DropIndex
DROP INDEX "memories_thread_id_idx";

-- AlterTable
ALTER TABLE "memories" ADD COLUMN     "lexical_version" SMALLINT;

-- CreateTable
CREATE TABLE "memory_terms" (
    "user_id" UUID NOT NULL,
    "term" TEXT NOT NULL,
    "memory_id" UUID NOT NULL,
    "tf" SMALLINT NOT NULL,

    CONSTRAINT "memory_terms_pkey" PRIMARY KEY ("user_id","term","memory_id")
);

-- CreateIndex
CREATE INDEX "memory_terms_memory_id_idx" ON "memory_terms"("memory_id");

-- CreateIndex
CREATE INDEX "memories_thread_id_id_idx" ON "memories"("thread_id", "id");

-- AddForeignKey
ALTER TABLE "memory_terms" ADD CONSTRAINT "memory_terms_memory_id_fkey" FOREIGN KEY ("memory_id") REFERENCES "memories"("id") ON DELETE CASCADE ON UPDATE CASCADE;
