import type { LatencySummary } from "./stats.ts";

export type Cell = string | number;

/** Prints rows under a header, each column as wide as its widest cell; numbers (and "12.3 ms") align right. */
export function printTable(header: readonly string[], rows: readonly (readonly Cell[])[]): void {
  const text = rows.map((row) => row.map((cell) => (typeof cell === "number" ? fixed(cell) : cell)));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((row) => (row[i] ?? "").length)));
  const numeric = header.map((_, i) => text.every((row) => /^[-+]?[\d.,]+( ?[a-z/%]+)?$|^-$|^n\/a$/i.test(row[i] ?? "")));
  const line = (cells: readonly string[], forceLeft = false) =>
    cells.map((cell, i) => (numeric[i] && !forceLeft ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ").trimEnd();
  console.log(line(header.map((h, i) => (numeric[i] ? h.padStart(widths[i]!) : h)), true));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of text) console.log(line(row));
}

/** Up to 2 decimals for small numbers, none for large ones: the precision a reader can use. */
export function fixed(value: number): string {
  if (!Number.isFinite(value)) return "-";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** The latency columns every bench prints, after its own leading cells. */
export const LATENCY_HEADER = ["n", "p50 ms", "p95 ms", "p99 ms", "mean ms", "max ms", "ops/s"] as const;

export function latencyCells(s: LatencySummary): Cell[] {
  return [String(s.count), s.p50, s.p95, s.p99, s.mean, s.max, s.perSecond];
}

/** "PASS"/"FAIL" line for a target, so that a reader of a log sees at once what held. */
export function verdict(label: string, ok: boolean, detail: string): string {
  return `${ok ? "PASS" : "FAIL"}  ${label}: ${detail}`;
}
