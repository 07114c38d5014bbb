-- An event that a webhook endpoint wants stays in the outbox, claimed, while its first attempts are made: it is
-- the durable mark that they are owed (an instance that dies mid-attempt leaves it to be claimed again once the
-- claim lapses), and their outcomes are then written as the deliveries' rows in the statement that takes it out.
-- Not indexed: the column is set and read on the few rows under way, and an update that touches no indexed
-- column changes the row in place (a HOT update).
ALTER TABLE "events" ADD COLUMN "claimed_until" TIMESTAMPTZ(3);
