import { expect } from "vitest";
import { MemoryServiceError } from "../../src/client/index.ts";

/** The MemoryServiceError a client call fails with (and a failed test if it succeeds or fails otherwise). */
export async function rejection(promise: PromiseLike<unknown>): Promise<MemoryServiceError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(MemoryServiceError);
  return error as MemoryServiceError;
}
