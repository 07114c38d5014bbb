import { expect } from "vitest";

/** A timestamp as the API writes it: ISO 8601, UTC, to the millisecond. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A memory with every writable field but its thread set, as the create tests send it. */
export const FULL_MEMORY = {
  content: "I prefer tea to coffee",
  type: "preference",
  tags: ["drinks", "morning"],
  metadata: { source: "chat", confidence: 0.9 },
};

/** What a create of FULL_MEMORY answers: the memory in snake_case, and ok: true. */
export const CREATED_FULL_MEMORY = {
  id: expect.stringMatching(UUID),
  ...FULL_MEMORY,
  thread_id: null,
  is_archived: false,
  expires_at: null,
  created_at: expect.stringMatching(ISO),
  updated_at: expect.stringMatching(ISO),
  ok: true,
};

/** A memory with a value in every field a replace (PUT) of REPLACEMENT leaves out. */
export const BEFORE_REPLACE = { content: "old", type: "task", tags: ["a"], metadata: { k: 1 } };
export const REPLACEMENT = { content: "replaced", tags: ["b"] };
/** What that replace leaves: what it sent, and every field it left out back at its default. */
export const REPLACED = { ...REPLACEMENT, type: null, metadata: {}, thread_id: null, is_archived: false };
