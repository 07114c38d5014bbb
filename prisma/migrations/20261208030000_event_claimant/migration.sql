-- the instance whose claim an event holds (src/webhooks/take-out.ts): another leaves the user's later events to it
ALTER TABLE "events" ADD COLUMN "claimed_by" UUID;
