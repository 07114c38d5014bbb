/** A flag's value as a positive whole number; a typo should stop the bench, not run it with NaN. */
export function positiveInt(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number, not ${value}`);
  return n;
}

/** "10000,100000" or "10k,100k" → [10000, 100000]. */
export function intList(name: string, value: string | undefined): number[] {
  return (value ?? "")
    .split(",")
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean)
    .map((part) => positiveInt(name, part.endsWith("k") ? String(Number(part.slice(0, -1)) * 1000) : part));
}

export function stringList(value: string | undefined): string[] {
  return (value ?? "").split(",").map((part) => part.trim()).filter(Boolean);
}
