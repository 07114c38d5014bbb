import { readFileSync } from "node:fs";

/** Resident and peak resident memory of a process, in MB, from /proc. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** The highest resident memory of a process (MB) while `work` runs, sampled every `everyMs`, and its start. */
export async function rssDuring<T>(pid: number, work: () => Promise<T>, everyMs = 20): Promise<{ result: T; before: number; max: number }> {
  const before = memoryOf(pid).rss;
  let max = before;
  const timer = setInterval(() => (max = Math.max(max, memoryOf(pid).rss)), everyMs);
  try {
    const result = await work();
    max = Math.max(max, memoryOf(pid).rss);
    return { result, before, max };
  } finally {
    clearInterval(timer);
  }
}
