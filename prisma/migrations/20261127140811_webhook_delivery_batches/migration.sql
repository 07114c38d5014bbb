-- CreateTable
CREATE TABLE "webhook_delivery_batches" (
    "id" BIGSERIAL NOT NULL,
    "webhook_id" UUID NOT NULL,
    "delivered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "event_ids" UUID[],
    "event_types" TEXT[],
    "event_created_ats" TIMESTAMPTZ(3)[],
    "response_statuses" INTEGER[],

    CONSTRAINT "webhook_delivery_batches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_delivery_batches_webhook_id_id_idx" ON "webhook_delivery_batches"("webhook_id", "id");

-- AddForeignKey
ALTER TABLE "webhook_delivery_batches" ADD CONSTRAINT "webhook_delivery_batches_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
