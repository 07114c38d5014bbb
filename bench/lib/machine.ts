import { availableParallelism, loadavg } from "node:os";

/**
 * The machine's cores and recent load, printed with every bench: on a small shared machine a figure taken
 * while other processes held the CPU is not comparable with one taken on an idle machine.
 */
export function machineLine(): string {
  const [one, five] = loadavg();
  return `machine: ${availableParallelism()} cores, load average ${one!.toFixed(2)} (1 min) ${five!.toFixed(2)} (5 min), Node ${process.version}`;
}
