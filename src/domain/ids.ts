import { randomBytes } from "node:crypto";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a record, so callers treat it as "not found". */
export const isUuid = (value: string): boolean => UUID.test(value);

let lastMs = 0;
let counter = 0;

// random bytes drawn 4 KB at a time: one randomBytes call per id cost a 100-memory batch ~0.8 ms
const POOL_BYTES = 4096;
let pool = randomBytes(POOL_BYTES);
let used = 0;

function random16(): Buffer {
  if (used + 16 > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  return pool.subarray(used, (used += 16));
}

/**
 * A UUID version 7 (RFC 9562): a millisecond timestamp, a 12-bit counter, then random bits. Ids made by this
 * process increase strictly, even within a millisecond (the counter), so id order is creation order: thread
 * context in recall relies on it for memories stored in one batch. Made here rather than by the database so
 * that one transaction can use the id of a row it inserts.
 */
export function newId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    // 4,096 ids in one millisecond: borrow the next one
    lastMs++;
    counter = 0;
  }
  const bytes = random16();
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return uuidOfHex(bytes.toString("hex"));
}

/** 32 hexadecimal digits written as a UUID, as PostgreSQL writes a uuid cast from them. */
export const uuidOfHex = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
