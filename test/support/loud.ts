/**
 * Says, in a frame no one scrolls past, what is not tested and why: a skip that passes quietly would read as
 * a pass.
 */
export function warnUntested(lines: string[]): void {
  const frame = "!".repeat(100);
  console.warn(`\n${frame}\n${lines.map((line) => `!! ${line}`).join("\n")}\n${frame}\n`);
}
