-- The process running a request with an Idempotency-Key: a key whose process ended mid-request (kill -9) is taken
-- over by the same request's retry, at once on the embedded database, after IDEMPOTENCY_LEASE_SECONDS on PostgreSQL;
-- it was held until the record expired, 24 hours on.
-- AlterTable
ALTER TABLE "idempotency_records" ADD COLUMN "owner" UUID;
