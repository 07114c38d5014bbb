import { afterAll, beforeAll } from "vitest";

/**
 * Something a suite makes before its tests (`make`) and, given `dispose`, disposes of after them. Call it in a
 * describe block; call what it returns in the tests and hooks.
 */
export function suiteValue<T>(what: string, make: () => Promise<T>, dispose?: (value: T) => Promise<unknown>): () => T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await make();
  });
  if (dispose) afterAll(() => (value === undefined ? undefined : dispose(value)));
  return () => {
    if (value === undefined) throw new Error(`${what} is not made yet: read it in a test or hook`);
    return value;
  };
}
