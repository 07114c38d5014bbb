import { readFileSync } from "node:fs";

// the kernel's clock ticks per second for /proc times (USER_HZ): 100 on every Linux architecture Node runs on
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used so far, from /proc; undefined where there is no /proc. With
 * `thread`, those of one of its threads alone: the process' own id for its main thread (in Node.js, the event
 * loop's), whose time is what the API's throughput is bound by while other threads have a core to run on.
 */
export function cpuSeconds(pid: number, thread?: number): number | undefined {
  return statCpuSeconds(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`);
}

/** CPU seconds the calling thread has used so far (a worker thread's own, where process.cpuUsage is the process'). */
export function threadCpuSeconds(): number | undefined {
  return statCpuSeconds("/proc/thread-self/stat");
}

function statCpuSeconds(path: string): number | undefined {
  try {
    const stat = readFileSync(path, "utf8");
    // fields after the command (which may hold spaces, so split after its closing parenthesis): utime is the
    // 14th field of the line, stime the 15th
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
