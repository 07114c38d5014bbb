import { readFileSync } from "node:fs";

/**
 * When process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined where there
 * is no /proc or no such process. A pid and its start time name one process for as long as the machine runs.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // field 2, the command name, may hold spaces and parentheses: count from the last ")", before field 3
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Whether `pid` is the process that started at `started` (when known) and still runs. */
export function stillRunning(pid: number, started: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false; // EPERM: alive, someone else's
  }
  if (started === undefined) return true;
  const now = processStartTime(pid);
  return now === undefined || now === started;
}
