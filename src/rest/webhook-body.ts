import { isMemoryEvent, type ChangeEvent } from "../events/change-event.ts";
import { restMemory, type MemoryView } from "./memory-wire.ts";
import { restThread, type ThreadView } from "./thread-wire.ts";

/** The delivery body: `{type, timestamp, data}`, the object as the REST API shows it (its id alone for a delete). */
export function webhookBody(event: ChangeEvent): string {
  const object = event.data;
  const data = object === null ? { id: event.objectId } : isMemoryEvent(event.type) ? restMemory(object as unknown as MemoryView) : restThread(object as unknown as ThreadView);
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data });
}
