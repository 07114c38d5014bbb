import type { JsonObject } from "../domain/json.ts";

export const MEMORY_EVENT_TYPES = ["memory.created", "memory.updated", "memory.deleted"] as const;
export const THREAD_EVENT_TYPES = ["thread.created", "thread.updated", "thread.deleted"] as const;
export const EVENT_TYPES = [...MEMORY_EVENT_TYPES, ...THREAD_EVENT_TYPES] as const;

export type MemoryEventType = (typeof MEMORY_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * A committed change to a memory or a thread, as the outbox holds it and the feed carries it (plain JSON: it
 * crosses Redis between instances).
 */
export interface ChangeEvent {
  id: string;
  type: EventType;
  userId: string;
  /** The memory's or the thread's id. */
  objectId: string;
  /** The thread the change concerns: the thread itself, or the memory's (see the events migration). */
  threadId: string | null;
  /**
   * The memory's thread before the change, when the change moved it (to another thread or out of any); absent from
   * events of instances older than it.
   */
  previousThreadId?: string | null;
  /** When the change was made (its transaction's start), ISO 8601. */
  timestamp: string;
  /** The object as GraphQL shows it; null for a delete. */
  data: JsonObject | null;
}

export const isMemoryEvent = (type: EventType): type is MemoryEventType => type.startsWith("memory.");

/** The GraphQL enum's name of an event type: memory.created is MEMORY_CREATED (enum values cannot hold a dot). */
export const eventTypeName = (type: EventType): string => type.replace(".", "_").toUpperCase();
