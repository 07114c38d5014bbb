import { createHash, randomBytes } from "node:crypto";

const KEY_PREFIX = "msk_";
const DISPLAY_CHARS = 12;

export interface KeySecret {
  /** The full key: shown once, never stored. */
  key: string;
  /** What is stored: SHA-256 of the key, hex. Keys are 256 random bits, so a fast hash is enough. */
  hash: string;
  /** The start of the key, safe to display so that a user can tell keys apart. */
  prefix: string;
}

const KEY_PATTERN = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_-]+`, "g");

/** `text` with any key in it cut to its displayable prefix: for what is logged of a request sent with a key in its path. */
export const redactKeys = (text: string): string => text.replace(KEY_PATTERN, (key) => `${key.slice(0, DISPLAY_CHARS)}…`);

// a full key: the prefix and 43 base64url characters (32 random bytes), whole (not part of a longer word)
const FULL_KEY = new RegExp(`(?<![A-Za-z0-9_-])(${KEY_PREFIX}[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`, "g");

/**
 * A JSON answer kept to be replayed (Idempotency-Key) with every full key in it cut to its prefix: a key is shown
 * once and stored only as its hash, so a replay of the request that made it says which key it was, not the key.
 * Wherever it stands: a GraphQL alias (`{ s: key }`) renamed the field that an earlier match looked for, and the
 * key was kept in full, and replayed (outside probe).
 */
export const withoutShownKeys = (json: string): string => json.replace(FULL_KEY, (key: string) => `${key.slice(0, DISPLAY_CHARS)}…`);

export const hashKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export function generateKeySecret(): KeySecret {
  const key = KEY_PREFIX + randomBytes(32).toString("base64url");
  return { key, hash: hashKey(key), prefix: key.slice(0, DISPLAY_CHARS) };
}
