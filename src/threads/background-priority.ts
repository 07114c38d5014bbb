import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * The nice value of the service's background threads (the webhook sender's): the kernel gives their work the
 * cores the API's threads leave, rather than sharing the cores with them evenly, so that a stream of deliveries
 * does not slow the requests that make them. Linux schedules each thread on its own, so the calling thread's id
 * (/proc/thread-self) is lowered, not the process'. Elsewhere, or where it is refused, the thread runs as before.
 */
export const BACKGROUND_NICE = 10;

export function lowerThisThreadsPriority(): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid)) setPriority(tid, BACKGROUND_NICE);
  } catch {
    // no /proc (not Linux), or not permitted: the thread keeps the process' priority
  }
}
