-- AlterTable
ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" DROP NOT NULL;

-- the bodies of deliveries already made or given up are never sent again
UPDATE "webhook_deliveries" SET "payload" = NULL WHERE "status" <> 'pending';
