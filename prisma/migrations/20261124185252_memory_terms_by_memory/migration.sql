-- memory_terms keyed by (memory_id, term), which new memories append to, instead of (user_id, term, memory_id),
-- which they inserted into the middle of (it filled to 57%: 78 MB at 100 000 short memories, of a 500 MB target
-- for the data directory). A user's postings of a term are found by (user_id, term), whose repeated keys
-- deduplicate (a few MB); BM25 read each posting's tf from the table already, and now its memory_id too, from the
-- same row. The index on memory_id alone is the new key's prefix.

-- DropIndex
DROP INDEX "memory_terms_memory_id_idx";

-- AlterTable
ALTER TABLE "memory_terms" DROP CONSTRAINT "memory_terms_pkey",
ADD CONSTRAINT "memory_terms_pkey" PRIMARY KEY ("memory_id", "term");

-- CreateIndex
CREATE INDEX "memory_terms_user_id_term_idx" ON "memory_terms"("user_id", "term");
