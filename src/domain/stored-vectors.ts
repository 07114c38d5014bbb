import type { Database } from "../db/database.ts";
import { packBytes, unpackSql } from "../db/packed-bytes.ts";
import type { Logger } from "../logger.ts";
import { storedToVector, vectorToStored } from "../vectors/codec.ts";

const BATCH = 500;
// how many of the newest memories are looked at for an embedder's earlier vectors (storedDimensions)
const NEWEST = 10_000;

/**
 * The size of the vectors an embedder whose id begins with `stem` made for the newest memories (among the newest
 * NEWEST), if it made any: an embedder's id ends with it.
 */
export async function storedDimensions(db: Database, stem: string): Promise<number | undefined> {
  const [row] = await db.sql.query<{ embedder: string }>(
    `SELECT embedder FROM (SELECT id, embedder FROM memories ORDER BY id DESC LIMIT ${NEWEST}) m
      WHERE starts_with(embedder, $1) ORDER BY id DESC LIMIT 1`,
    [stem],
  );
  const dimensions = row ? Number(row.embedder.slice(stem.length)) : Number.NaN;
  return Number.isInteger(dimensions) && dimensions > 0 ? dimensions : undefined;
}

/**
 * Rewrites in the half form the vectors of memories stored before it, as float32 (an even length; the half form's
 * is odd, codec.ts), a page at a time while the server answers: both forms read alike, so nothing waits for it.
 * The rewritten rows first take new space (20 000 memories: the table grew from 59 to 87 MB); on the embedded
 * database, once, the table is then rewritten compactly (31 MB; 1.5 s during which the database waits). On
 * PostgreSQL, whose VACUUM FULL would lock the table for every server, the space is reused by later writes, or
 * given back by an operator's `VACUUM FULL memories`.
 */
export async function halveStoredVectors(db: Database, logger: Logger): Promise<number> {
  let total = 0;
  for (let after = "00000000-0000-0000-0000-000000000000"; ; ) {
    const rows = await db.sql.query<{ id: string; embedding: Uint8Array }>(
      `SELECT id, embedding FROM memories WHERE id > $1::uuid AND octet_length(embedding) % 2 = 0 ORDER BY id LIMIT $2`,
      [after, BATCH],
    );
    if (rows.length === 0) break;
    const old = packBytes(rows.map((r) => r.embedding));
    const halved = packBytes(rows.map((r) => vectorToStored(storedToVector(r.embedding))));
    // only where the vector is still the one read: a write meanwhile stored its own
    await db.sql.query(
      `UPDATE memories m SET embedding = ${unpackSql("$6::bytea", "x.at", "x.len")}
         FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::int[]) AS x(id, old_at, old_len, at, len)
        WHERE m.id = x.id AND m.embedding = ${unpackSql("$7::bytea", "x.old_at", "x.old_len")}`,
      [rows.map((r) => r.id), old.at, old.len, halved.at, halved.len, halved.blob, old.blob],
    );
    total += rows.length;
    after = rows[rows.length - 1]!.id;
  }
  if (total === 0) return 0;
  if (db.kind === "pglite") await db.sql.exec("VACUUM FULL memories");
  logger.info({ memories: total }, "stored the vectors of memories written before in half precision");
  return total;
}
