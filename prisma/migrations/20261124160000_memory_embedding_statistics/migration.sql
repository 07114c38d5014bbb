-- No query filters, joins or sorts on a memory's embedding: where one asks whether there is one, it also asks
-- which embedder made it (a column that keeps its statistics). Computing the embedding's statistics sorted
-- every sampled 2 KB value: about 40% of ANALYZE memories at 10 000 memories (float32 vectors, before they were
-- halved), and on the embedded database ANALYZE runs in the server's own thread (src/db/maintenance.ts), between requests. Prisma's schema does not
-- describe statistics targets, so this lives only here.
ALTER TABLE "memories" ALTER COLUMN "embedding" SET STATISTICS 0;
