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

/** What a resident mapping of /proc/<pid>/smaps holds, as far as its address, neighbours and name tell. */
export type MappingKind =
  | "WebAssembly memories"
  | "allocator: main heap"
  | "allocator: thread arenas"
  | "node binary"
  | "other files"
  | "other anonymous (V8 heaps, stacks)";

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rssKb: number;
}

// glibc gives each thread arena a 64 MB-aligned region, its unused end inaccessible; V8 follows each
// WebAssembly memory with gigabytes of inaccessible guard region
const ARENA_BYTES = 64n * 1024n * 1024n;
const WASM_GUARD_BYTES = 1024n * 1024n * 1024n;

function kindOf(mapping: Mapping, next: Mapping | undefined): MappingKind {
  if (mapping.name === "[heap]") return "allocator: main heap";
  if (mapping.name.startsWith("/")) return mapping.name === process.execPath ? "node binary" : "other files";
  if (mapping.name === "" && next && next.start === mapping.end && next.perms.startsWith("---") && next.name === "") {
    if (next.end - next.start >= WASM_GUARD_BYTES) return "WebAssembly memories";
    if (mapping.start % ARENA_BYTES === 0n && next.end - mapping.start === ARENA_BYTES) return "allocator: thread arenas";
  }
  return "other anonymous (V8 heaps, stacks)";
}

/**
 * Resident MB of a process by what holds it, from its mappings: a reading of where the memory is, not an exact
 * account (an arena or a V8 reservation laid out like the other counts as it).
 */
export function residentByKind(pid: number): Map<MappingKind, number> {
  const mappings: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      mappings.push({ start: BigInt(`0x${header[1]}`), end: BigInt(`0x${header[2]}`), perms: header[3]!, name: header[4]!.trim(), rssKb: 0 });
    } else if (line.startsWith("Rss:") && mappings.length) {
      mappings[mappings.length - 1]!.rssKb = Number(line.split(/\s+/)[1]);
    }
  }
  const byKind = new Map<MappingKind, number>();
  mappings.forEach((mapping, i) => {
    const kind = kindOf(mapping, mappings[i + 1]);
    byKind.set(kind, (byKind.get(kind) ?? 0) + mapping.rssKb / 1024);
  });
  return byKind;
}
