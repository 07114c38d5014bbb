-- AlterTable
ALTER TABLE "idempotency_records" ALTER COLUMN "response" DROP NOT NULL;
